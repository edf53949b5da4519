/**
 * The incremental index (docs/knowledge-tools.md "Search index"): after any series of uploads and
 * replacements, a replica that followed them by the change log answers exactly as one that loads
 * the project afresh. Real Redis, the built-in local embedder, fast-check for the series.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { startRedis, type RedisFixture } from '@svc/testkit';
import { createKnowledge, uploadDocument } from '../src/index.ts';

let redis: RedisFixture;
before(async () => {
  redis = await startRedis();
});
after(() => redis.stop());

const WORDS = ['token', 'rotation', 'pelican', 'quota', 'refresh', 'device', 'code', 'session', 'replica', 'lease'];
const paragraph = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 12 }).map((w) => w.join(' '));
const document = fc
  .array(fc.tuple(fc.constantFrom(...WORDS), paragraph), { minLength: 1, maxLength: 5 })
  .map((secs) => secs.map(([h, p]) => `# ${h}\n\n${p}`).join('\n\n'));
const step = fc.tuple(fc.constantFrom('a.md', 'b.md', 'c.md', 'd.md'), document);
const QUERIES = ['pelican quota', 'refresh token rotation', 'device code', 'session lease replica'];

test('after any series of uploads and replacements, incremental results equal a fresh load', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(step, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }), async (rounds) => {
      await redis.flush();
      const follower = createKnowledge(redis.client);
      let loads = 0;
      for (const round of rounds) {
        for (const [name, content] of round) await uploadDocument(redis.client, follower.embedder, 'p', { name, content });
        loads++;
        const fresh = createKnowledge(redis.client);
        for (const q of QUERIES)
          for (const mode of ['keyword', 'semantic', 'hybrid'] as const)
            assert.deepEqual(await follower.search.search('p', q, mode, 10), await fresh.search.search('p', q, mode, 10), `${mode} "${q}"`);
      }
      assert.ok(loads > 0);
    }),
    { numRuns: 40 },
  );
});

test('a replica behind a trimmed change log loads afresh and is still right', async () => {
  await redis.flush();
  const k = createKnowledge(redis.client);
  await uploadDocument(redis.client, k.embedder, 'q', { name: 'keep.md', content: '# Keep\n\nzebra crossing' });
  assert.equal((await k.search.search('q', 'zebra', 'keyword', 5)).length, 1);
  await uploadDocument(redis.client, k.embedder, 'q', { name: 'keep.md', content: '# Keep\n\ngiraffe neck' });
  await redis.client.del('svc:kb:{q}:log');
  assert.equal((await k.search.search('q', 'zebra', 'keyword', 5)).length, 0);
  assert.equal((await k.search.search('q', 'giraffe', 'keyword', 5)).length, 1);
});
