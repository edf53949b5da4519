/**
 * The index's memory and event-loop bounds (docs/knowledge-tools.md "Index memory" and
 * "Event-loop budget"): the heap a replica's index of 1 MB of text holds (after full collections,
 * so a loaded machine does not move it), that approximateBytes() - what the replica's budget
 * counts - stays near it, and the longest event-loop turn (in thread CPU time) while it loads,
 * measured in this process with a real Redis.
 */
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { after, before, test } from 'node:test';
import { startRedis, type RedisFixture } from '@svc/testkit';
import { createKnowledge, uploadDocument } from '../src/index.ts';
import { generatedDocument, prng, settledHeapBytes } from '../../../bench/search-memory.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * Ceilings in bytes of index per character of text, by section shape. Measured: 10.5-11.2 (tiny,
 * of which 5.3 are the 512-byte vectors), 4.4-4.5 (medium), 3.4-3.7 (big); 23.8, 13.2 and 11.6
 * before the index moved to typed arrays.
 */
const CEILING = { tiny: 13, medium: 6, big: 5 } as const;
/** approximateBytes() over the measured heap stays within this range (the replica's budget counts it). */
const ESTIMATE_RANGE = { min: 0.5, max: 2 } as const;
/** The longest event-loop turn allowed while an index loads (docs/knowledge-tools.md). */
const MAX_TURN_MS = 50;

/**
 * The most CPU time of this thread between two consecutive setImmediate callbacks, i.e. in one
 * event-loop turn. Thread CPU time, not wall time: other processes on a loaded machine do not count.
 */
function longestTurn() {
  const cpu = () => {
    const u = process.threadCpuUsage();
    return (u.user + u.system) / 1000;
  };
  let last = cpu();
  let max = 0;
  let running = true;
  const tick = () => {
    const now = cpu();
    max = Math.max(max, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    async stop(): Promise<number> {
      await new Promise((r) => setImmediate(r));
      running = false;
      return max;
    },
  };
}

let redis: RedisFixture;
before(async () => {
  redis = await startRedis();
});
after(() => redis.stop());

for (const [shape, sectionChars] of [
  ['tiny', 100],
  ['medium', 800],
  ['big', 2900],
] as const) {
  test(`1 MB of text in ${shape} sections: index under ${CEILING[shape]} bytes a character, no turn over ${MAX_TURN_MS} ms`, async (t) => {
    await redis.flush();
    const writer = createKnowledge(redis.client);
    const rand = prng(7);
    for (let d = 0; d < 5; d++)
      await uploadDocument(redis.client, writer.embedder, 'mem', {
        name: `${d}.md`,
        content: generatedDocument(rand, 200_000, sectionChars),
      });
    const reader = createKnowledge(redis.client);
    const before = await settledHeapBytes(gc);
    const turns = longestTurn();
    assert.ok((await reader.search.size('mem')) > 0);
    const turnMs = await turns.stop();
    const heap = (await settledHeapBytes(gc)) - before;
    const perChar = heap / 1_000_000;
    assert.ok(perChar < CEILING[shape], `${perChar.toFixed(1)} bytes a character`);
    assert.ok(turnMs < MAX_TURN_MS, `longest turn ${turnMs.toFixed(1)} ms of CPU`);
    const ratio = reader.search.cachedBytes() / heap;
    t.diagnostic(`${perChar.toFixed(1)} bytes a character, approximateBytes ${ratio.toFixed(2)}x, longest turn ${turnMs.toFixed(1)} ms`);
    assert.ok(ratio >= ESTIMATE_RANGE.min && ratio <= ESTIMATE_RANGE.max, `approximateBytes is ${ratio.toFixed(2)}x the heap`);
  });
}
