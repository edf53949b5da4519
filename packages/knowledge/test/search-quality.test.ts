/**
 * Search quality on a shipped corpus (excerpts of RFC 8628 as Markdown): for each query the
 * expected section ranks first in every mode. Real Redis, the built-in local embedder.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { startRedis, type RedisFixture } from '@svc/testkit';
import { createKnowledge, uploadDocument, type Knowledge } from '../src/index.ts';
import { QUERIES } from './fixtures/queries.ts';

let redis: RedisFixture;
let k: Knowledge;
const corpus = readFileSync(new URL('./fixtures/rfc8628.md', import.meta.url), 'utf8');

before(async () => {
  redis = await startRedis();
  k = createKnowledge(redis.client);
  const r = await uploadDocument(redis.client, k.embedder, 'rfc', { name: 'rfc8628.md', content: corpus });
  assert.equal(r.headings.length, 15);
});
after(() => redis.stop());

for (const mode of ['keyword', 'semantic', 'hybrid'] as const) {
  test(`${mode}: the expected section ranks first for each query`, async () => {
    const misses: string[] = [];
    for (const q of QUERIES) {
      const hits = await k.search.search('rfc', q.query, mode, 3);
      if (hits[0]?.heading !== q.expected)
        misses.push(`"${q.query}" -> ${hits.map((h) => h.heading).join(' | ')} (expected ${q.expected})`);
    }
    assert.deepEqual(misses, []);
  });
}

test('a two-section document: keyword finds pelican, hybrid finds the rotation section', async () => {
  const doc =
    '# Rotation\n\nRotate keys every ninety days and revoke the old key.\n\n# Quotas\n\nThe monthly quota of the pelican plan resets on the first day.';
  await uploadDocument(redis.client, k.embedder, 'ops', { name: 'ops.md', content: doc });
  assert.match((await k.search.search('ops', 'pelican quota', 'keyword', 5))[0]?.text ?? '', /pelican/);
  assert.match((await k.search.search('ops', 'how often should keys be rotated', 'hybrid', 5))[0]?.text ?? '', /ninety/);
  assert.match((await k.search.search('ops', 'how often should keys be rotated', 'semantic', 5))[0]?.text ?? '', /ninety/);
});

test('re-upload replaces the sections, and every reader sees it at once (a second index = another replica)', async () => {
  const other = createKnowledge(redis.client);
  await uploadDocument(redis.client, k.embedder, 'rep', { name: 'a.md', content: '# Old\n\nzebra crossing' });
  assert.equal((await other.search.search('rep', 'zebra', 'keyword', 5)).length, 1);
  const r = await uploadDocument(redis.client, k.embedder, 'rep', { name: 'a.md', content: '# New\n\ngiraffe neck' });
  assert.equal(r.replaced, true);
  assert.equal((await other.search.search('rep', 'zebra', 'keyword', 5)).length, 0);
  assert.equal((await other.search.search('rep', 'giraffe', 'hybrid', 5))[0]?.heading, 'New');
  assert.equal(await redis.client.hlen('svc:kb:{rep}:sec'), 1);
});

test('a project reads only its own sections', async () => {
  assert.deepEqual(await k.search.search('nobody', 'device code', 'hybrid', 5), []);
  const hits = await k.search.search('ops', 'device code', 'keyword', 5);
  assert.ok(hits.every((h) => h.doc === 'ops.md'));
});

test('an embedder that fails leaves keyword search working and vectors are filled in later', async () => {
  let down = true;
  const local = k.embedder;
  const flaky = {
    id: local.id,
    minSimilarity: 0.05,
    embed: async (t: string[]) => (down ? Promise.reject(new Error('down')) : local.embed(t)),
  };
  const kk = createKnowledge(redis.client, { embedder: flaky });
  await uploadDocument(redis.client, flaky, 'flaky', { name: 'f.md', content: '# Ferry\n\nThe ferry leaves at noon.' });
  assert.equal((await kk.search.search('flaky', 'ferry', 'keyword', 5)).length, 1);
  down = false;
  const fresh = createKnowledge(redis.client, { embedder: flaky });
  assert.equal((await fresh.search.search('flaky', 'ferry noon', 'semantic', 5))[0]?.heading, 'Ferry');
  const stored = JSON.parse((await redis.client.hvals('svc:kb:{flaky}:sec'))[0] ?? '{}') as { emb: string };
  assert.equal(stored.emb, local.id);
});
