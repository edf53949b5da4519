/**
 * A replica's search indexes are bounded (docs/knowledge-tools.md "Index memory"): at most
 * `maxProjects` of them and about `maxBytes` in all, the least recently used dropped first and the
 * one in use always kept; a dropped index is loaded again when its project is searched.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { startRedis, type RedisFixture } from '@svc/testkit';
import { createSearchIndex, localEmbedder, uploadDocument } from '../src/index.ts';

let redis: RedisFixture;
const embedder = localEmbedder();
const PROJECTS = Array.from({ length: 8 }, (_, i) => `cache-${i}`);

before(async () => {
  redis = await startRedis();
});
beforeEach(async () => {
  await redis.flush();
  for (const [i, project] of PROJECTS.entries()) {
    const content = Array.from({ length: 20 }, (_, s) => `# Part ${s}\n\nwidget ${i} ${'gear lever spring '.repeat(40)}`).join('\n\n');
    await uploadDocument(redis.client, embedder, project, { name: 'doc.md', content });
  }
});
after(() => redis.stop());

/** Bytes of one project's index, measured alone. */
async function oneIndexBytes(): Promise<number> {
  const alone = createSearchIndex(redis.client, embedder);
  await alone.search(PROJECTS[0]!, 'widget', 'keyword', 1);
  return alone.cachedBytes();
}

test('at most maxProjects indexes are kept, least recently used dropped first', async () => {
  const one = await oneIndexBytes();
  const search = createSearchIndex(redis.client, embedder, { maxProjects: 3 });
  for (const project of PROJECTS) assert.equal((await search.search(project, 'widget', 'keyword', 1)).length, 1, project);
  assert.ok(Math.abs(search.cachedBytes() - 3 * one) < one / 2, `${search.cachedBytes()} bytes kept, about 3 indexes of ${one}`);
  // A dropped project is loaded again and still answers.
  assert.match((await search.search(PROJECTS[0]!, 'widget 0', 'keyword', 1))[0]!.text, /widget 0/);
  assert.ok(search.cachedBytes() < 3.5 * one);
});

test('at most about maxBytes of indexes are kept; the one in use stays even when it alone is larger', async () => {
  const one = await oneIndexBytes();
  const search = createSearchIndex(redis.client, embedder, { maxBytes: Math.floor(2.5 * one) });
  for (const project of PROJECTS) await search.search(project, 'widget', 'keyword', 1);
  assert.ok(search.cachedBytes() <= 2.5 * one, `${search.cachedBytes()} bytes kept, at most ${2.5 * one}`);
  assert.ok(search.cachedBytes() >= one, 'the index in use is kept');
  const tiny = createSearchIndex(redis.client, embedder, { maxBytes: 1 });
  for (const project of PROJECTS) assert.equal((await tiny.search(project, 'widget', 'keyword', 1)).length, 1, project);
  assert.ok(Math.abs(tiny.cachedBytes() - one) < one / 2, 'only the index in use');
});
