/**
 * Reads a project's sections and version in one MULTI (a consistent snapshot), and fills in
 * vectors that are missing or were made by another embedder (an upload while the embeddings
 * service was down, or a change of embedder), writing them back only for sections that still exist.
 */
import type { Redis } from 'ioredis';
import { sectionEmbeddingText, vectorFromBase64, vectorToBase64, type StoredSection } from './documents.ts';
import type { Embedder } from './embedder.ts';
import { kbKeys } from './keys.ts';
import { runScript, script } from './lua.ts';

export interface IndexedSection extends StoredSection {
  vector: Float32Array | null;
}

// KEYS: sections. ARGV: id/json pairs. A section replaced meanwhile is not brought back.
const WRITE_BACK = script(`
for i = 1, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 1 then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 0
`);

export async function loadSnapshot(
  redis: Redis,
  embedder: Embedder,
  project: string,
  onEmbedFailure?: (err: unknown) => void,
): Promise<{ version: string; sections: IndexedSection[] }> {
  const k = kbKeys(project);
  const res = await redis.multi().get(k.version).hgetall(k.sections).exec();
  const version = (res?.[0]?.[1] as string | null) ?? '0';
  const raw = (res?.[1]?.[1] as Record<string, string> | null) ?? {};
  const sections: IndexedSection[] = Object.values(raw)
    .map((j) => JSON.parse(j) as StoredSection)
    .sort((a, b) => a.doc.localeCompare(b.doc) || a.ord - b.ord)
    .map((s) => ({ ...s, vector: s.emb === embedder.id && s.vec ? vectorFromBase64(s.vec) : null }));

  const missing = sections.filter((s) => !s.vector);
  if (missing.length) {
    try {
      const vectors = await embedder.embed(missing.map(sectionEmbeddingText));
      const args: string[] = [];
      missing.forEach((s, i) => {
        const v = vectors[i];
        if (!v) return;
        s.vector = v;
        const { vector: _omit, ...stored } = s;
        args.push(s.id, JSON.stringify({ ...stored, emb: embedder.id, vec: vectorToBase64(v) }));
      });
      if (args.length) await runScript(redis, WRITE_BACK, [k.sections], args);
    } catch (err) {
      // Semantic ranking skips these sections until the embedder answers again; keyword is unaffected.
      onEmbedFailure?.(err);
    }
  }
  return { version, sections };
}
