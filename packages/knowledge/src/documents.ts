/**
 * Document storage: an upload is split into sections, embedded, and written with the replacement
 * of any document of the same name in one Lua script, so concurrent uploads of one name never
 * leave orphan sections and the project's limits hold exactly.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Embedder } from './embedder.ts';
import { kbKeys } from './keys.ts';
import { runScript, script } from './lua.ts';
import { splitMarkdown } from './markdown.ts';

/** Limits (docs/knowledge-tools.md). The content limit is also in the tool's JSON Schema. */
export const LIMITS = {
  documentChars: 200_000,
  sectionsPerProject: 10_000,
  documentsPerProject: 1_000,
} as const;

export interface StoredSection {
  id: string;
  doc: string;
  path: string[];
  heading: string;
  text: string;
  ord: number;
  /** Embedder id of `vec`; empty when the vector is still missing. */
  emb: string;
  /** Float32 vector, base64. */
  vec: string;
}

export interface DocumentRecord {
  name: string;
  path: string | null;
  sections: string[];
  chars: number;
  uploadedAt: string;
}

export interface UploadResult {
  document: DocumentRecord;
  replaced: boolean;
  headings: string[];
}

export class LimitError extends Error {
  override name = 'LimitError';
}

// KEYS: docs, sections, version. ARGV: name, docJson, maxSections, maxDocs, new version, then id/json pairs.
const UPLOAD = script(`
local old = redis.call('HGET', KEYS[1], ARGV[1])
local oldIds = {}
if old then oldIds = cjson.decode(old).sections end
local added = (#ARGV - 5) / 2
if not old and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then return {'docs', redis.call('HLEN', KEYS[1])} end
local total = redis.call('HLEN', KEYS[2]) - #oldIds + added
if total > tonumber(ARGV[3]) then return {'sections', total} end
for _, id in ipairs(oldIds) do redis.call('HDEL', KEYS[2], id) end
for i = 6, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SET', KEYS[3], ARGV[5])
if old then return {'replaced', 0} end
return {'created', 0}
`);

export function vectorToBase64(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

export function vectorFromBase64(s: string): Float32Array {
  const b = Buffer.from(s, 'base64');
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/** The text a section is embedded and indexed by: its heading path, then its text. */
export function sectionEmbeddingText(s: Pick<StoredSection, 'path' | 'text'>): string {
  return `${s.path.join(' / ')}\n${s.text}`;
}

export async function uploadDocument(
  redis: Redis,
  embedder: Embedder,
  project: string,
  input: { name: string; content: string; path?: string | null },
  onEmbedFailure?: (err: unknown) => void,
): Promise<UploadResult> {
  if (input.content.length > LIMITS.documentChars)
    throw new LimitError(
      `The document is ${input.content.length} characters; the limit is ${LIMITS.documentChars}. Split it into several documents.`,
    );
  const k = kbKeys(project);
  const split = splitMarkdown(input.content, input.name);
  const docId = randomBytes(6).toString('base64url');
  const sections: StoredSection[] = split.map((s, ord) => ({
    id: `${docId}.${ord}`,
    doc: input.name,
    path: s.path.length ? s.path : [s.heading],
    heading: s.heading,
    text: s.text,
    ord,
    emb: '',
    vec: '',
  }));
  try {
    const vectors = await embedder.embed(sections.map(sectionEmbeddingText));
    sections.forEach((s, i) => {
      const v = vectors[i];
      if (v) Object.assign(s, { emb: embedder.id, vec: vectorToBase64(v) });
    });
  } catch (err) {
    // Keyword search works without vectors; the index embeds missing ones when it next loads.
    onEmbedFailure?.(err);
  }
  const record: DocumentRecord = {
    name: input.name,
    path: input.path ?? null,
    sections: sections.map((s) => s.id),
    chars: input.content.length,
    uploadedAt: new Date().toISOString(),
  };
  // A random version, not a counter: after a flush or a failover a counter could repeat an old value and
  // leave replicas trusting a stale cached index.
  const version = randomBytes(9).toString('base64url');
  const args: string[] = [
    input.name,
    JSON.stringify(record),
    String(LIMITS.sectionsPerProject),
    String(LIMITS.documentsPerProject),
    version,
  ];
  for (const s of sections) args.push(s.id, JSON.stringify(s));
  const [status, n] = (await runScript(redis, UPLOAD, [k.docs, k.sections, k.version], args)) as [string, number];
  if (status === 'docs')
    throw new LimitError(`The project already holds ${n} documents, the limit. Re-upload an existing name to replace it instead.`);
  if (status === 'sections')
    throw new LimitError(`This upload would bring the project to ${n} sections; the limit is ${LIMITS.sectionsPerProject}.`);
  return { document: record, replaced: status === 'replaced', headings: sections.map((s) => s.heading) };
}
