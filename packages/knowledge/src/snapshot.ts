/**
 * How a replica's index of a project reaches the project's version in Redis
 * (docs/knowledge-tools.md "Search index"):
 * - loadIndex: a full load, every section read in pages (HSCAN), then caught up by the change log;
 * - applyChanges: only the documents named in the change log since the index's version, each read
 *   back in pages of sections (a document replaced meanwhile is read again), so the rest of the
 *   index is neither re-read nor rebuilt.
 * Both fill in vectors that are missing or were made by another embedder (an upload while the
 * embeddings service was down, or a change of embedder), writing them back only for sections that
 * still exist, and both run in time slices.
 */
import type { Redis } from 'ioredis';
import { sectionEmbeddingText, vectorFromBase64, vectorToBase64, type DocumentRecord, type StoredSection } from './documents.ts';
import { embeddingBatches, type Embedder } from './embedder.ts';
import { kbKeys } from './keys.ts';
import { runScript, script } from '@svc/limits';
import { ProjectIndex } from './project-index.ts';
import { slicer, type Slicer } from './slicer.ts';

/** More changed documents than this since the index's version: a full load is cheaper. */
const DELTA_MAX_DOCUMENTS = 100;
const RETRY_EMBEDDING_MS = 30_000;
/** Sections read per HSCAN call during a full load. */
const SCAN_PAGE = 200;
/**
 * Sections read per HMGET when a changed document is read back: a reply of a few hundred KB. One
 * reply of a whole document of 10,000 sections, 28 MB, took 20 ms of one turn to parse.
 */
const READ_PAGE = 100;
/** Reads of one changed document before the index is loaded afresh instead. */
const READ_ATTEMPTS = 3;

// KEYS: sections. ARGV: id/json pairs. A section replaced meanwhile is not brought back.
const WRITE_BACK = script(`
for i = 1, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 1 then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 0
`);

interface Loader {
  redis: Redis;
  embedder: Embedder;
  project: string;
  /** Whose share of the event loop's slices the work takes (slicer.ts): the project's workspace. */
  tenant: string;
  onEmbedFailure?: ((err: unknown) => void) | undefined;
}

/** A version is "<epoch>:<sequence>" (documents.ts); anything else only ever matches itself. */
function parseVersion(v: string): { epoch: string; seq: number } | null {
  const i = v.lastIndexOf(':');
  const seq = Number(v.slice(i + 1));
  return i > 0 && Number.isSafeInteger(seq) ? { epoch: v.slice(0, i), seq } : null;
}

export async function loadIndex(o: Loader): Promise<ProjectIndex> {
  const k = kbKeys(o.project);
  const s = slicer(o.tenant);
  const idx = new ProjectIndex();
  // The version first, then the sections in pages (no reply of tens of megabytes to parse in one
  // turn); documents changed meanwhile are then re-read whole by the change log.
  idx.version = (await o.redis.get(k.version)) ?? '0';
  const seen = new Set<string>();
  let cursor = '0';
  do {
    const [next, flat] = await o.redis.hscan(k.sections, cursor, 'COUNT', SCAN_PAGE);
    cursor = next;
    const sections: StoredSection[] = [];
    for (let i = 1; i < flat.length; i += 2) {
      // HSCAN may return a field twice (while Redis rehashes the hash).
      if (seen.has(flat[i - 1] as string)) continue;
      seen.add(flat[i - 1] as string);
      sections.push(JSON.parse(flat[i] as string) as StoredSection);
      await s.maybeYield();
    }
    await addWithVectors(o, idx, sections, s);
  } while (cursor !== '0');
  // The change log re-reads any document changed during the scan; an index that cannot catch up
  // (log trimmed) is loaded afresh by the next search.
  const now = (await o.redis.get(k.version)) ?? '0';
  if (now !== idx.version && !(await applyChanges(o, idx))) idx.retryAt = 0;
  return idx;
}

/**
 * Brings `idx` to the project's current version by the change log; false when it cannot (another
 * epoch after a flush, a log trimmed past the index's version, or too many changes): load afresh.
 */
export async function applyChanges(o: Loader, idx: ProjectIndex): Promise<boolean> {
  const from = parseVersion(idx.version);
  if (!from) return false;
  const k = kbKeys(o.project);
  const res = await o.redis.multi().get(k.version).lrange(k.log, 0, -1).exec();
  const version = (res?.[0]?.[1] as string | null) ?? '0';
  const to = parseVersion(version);
  if (!to || to.epoch !== from.epoch || to.seq < from.seq) return false;
  const names = new Set<string>();
  let seen = 0;
  for (const entry of (res?.[1]?.[1] as string[] | null) ?? []) {
    const space = entry.indexOf(' ');
    const seq = Number(entry.slice(0, space));
    if (seq <= from.seq || seq > to.seq) continue;
    seen++;
    names.add(entry.slice(space + 1));
  }
  if (seen !== to.seq - from.seq || names.size > DELTA_MAX_DOCUMENTS) return false;
  const s = slicer(o.tenant);
  await idx.removeDocuments(names, s);
  for (const name of names) {
    let sections = await readDocument(o, name, s);
    for (let attempt = 1; sections === null && attempt < READ_ATTEMPTS; attempt++) sections = await readDocument(o, name, s);
    if (sections === null) return false;
    await addWithVectors(o, idx, sections, s);
  }
  idx.version = version;
  return true;
}

/**
 * A document's current sections (none when it is gone), read in pages of READ_PAGE; null when one
 * of them is gone, i.e. the document was replaced while it was read (sections are never changed in
 * place but by WRITE_BACK, which fills in a vector only).
 */
async function readDocument(o: Loader, name: string, s: Slicer): Promise<StoredSection[] | null> {
  const k = kbKeys(o.project);
  const record = await o.redis.hget(k.docs, name);
  if (!record) return [];
  const ids = (JSON.parse(record) as DocumentRecord).sections;
  const sections: StoredSection[] = [];
  for (let i = 0; i < ids.length; i += READ_PAGE) {
    for (const json of await o.redis.hmget(k.sections, ...ids.slice(i, i + READ_PAGE))) {
      if (json === null) return null;
      sections.push(JSON.parse(json) as StoredSection);
      await s.maybeYield();
    }
  }
  return sections;
}

async function addWithVectors(o: Loader, idx: ProjectIndex, sections: StoredSection[], s: Slicer): Promise<void> {
  const vectors: (Float32Array | null)[] = [];
  const missing: number[] = [];
  for (const [i, sec] of sections.entries()) {
    const ok = sec.emb === o.embedder.id && sec.vec;
    vectors.push(ok ? vectorFromBase64(sec.vec) : null);
    if (!ok) missing.push(i);
    await s.maybeYield();
  }
  if (missing.length) await fillMissing(o, sections, vectors, missing, s);
  if (vectors.some((v) => !v)) idx.retryAt = Date.now() + RETRY_EMBEDDING_MS;
  await idx.add(
    sections.map((section, i) => ({ section, vector: vectors[i] ?? null })),
    s,
  );
}

async function fillMissing(o: Loader, sections: StoredSection[], vectors: (Float32Array | null)[], missing: number[], s: Slicer) {
  try {
    const args: string[] = [];
    const texts = missing.map((i) => sectionEmbeddingText(sections[i] as StoredSection));
    for (const [start, end] of embeddingBatches(texts)) {
      const batch = missing.slice(start, end);
      const out = await o.embedder.embed(texts.slice(start, end));
      batch.forEach((i, j) => {
        const v = out[j];
        if (!v) return;
        vectors[i] = v;
        args.push((sections[i] as StoredSection).id, JSON.stringify({ ...sections[i], emb: o.embedder.id, vec: vectorToBase64(v) }));
      });
      await s.maybeYield();
    }
    if (args.length) await runScript(o.redis, WRITE_BACK, [kbKeys(o.project).sections], args);
  } catch (err) {
    // Semantic ranking skips these sections until the embedder answers again; keyword is unaffected.
    o.onEmbedFailure?.(err);
  }
}
