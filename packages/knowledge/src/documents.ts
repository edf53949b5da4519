/**
 * Document storage: an upload is split into sections, embedded, and written with the replacement
 * of any document of the same name in one Lua script, so concurrent uploads of one name never
 * leave orphan sections and the project's limits and storage quota hold exactly; the same script
 * moves the project's version and appends to its change log (search.ts applies only what changed).
 * The workspace quota is reserved before, in a script on the workspace's own key
 * (docs/knowledge-tools.md "Storage quotas"). Splitting, embedding and JSON run in time slices, and
 * the sections reach Redis in staging commands of a few hundred kilobytes, which the script then
 * stores: one command of 3-6 MB took 8-30 ms of one turn to encode (docs/knowledge-tools.md
 * "Event-loop budget").
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { embeddingBatches, type Embedder } from './embedder.ts';
import { kbKeys, kbWorkspaceKeys } from './keys.ts';
import { runScript, script } from '@svc/limits';
import { splitMarkdownInSlices } from './markdown.ts';
import { slicer, type Slicer } from './slicer.ts';

/** Limits (docs/knowledge-tools.md). The content limit is also in the tool's JSON Schema. */
export const LIMITS = {
  documentChars: 200_000,
  sectionsPerProject: 10_000,
  documentsPerProject: 1_000,
} as const;

/** Change-log entries kept per project; a replica further behind loads the project afresh. */
const CHANGE_LOG_MAX = 1_000;
/**
 * One staging command of an upload: at most this many characters of section JSON (about 90
 * sections with their vectors), encoded and sent in about a millisecond.
 */
const STAGE_CHARS = 256 * 1024;
/** How long staged sections wait for their upload's script; each staging command renews it. */
const STAGED_TTL_MS = 60_000;

/** Storage quotas of one upload, in characters (the plan's, @svc/policy STORAGE_QUOTAS). */
export interface UploadQuota {
  projectChars: number;
  /** The project's workspace and its quota; absent: no workspace quota. */
  workspace?: { id: string; chars: number };
}

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

/** A storage quota (project or workspace) would be exceeded; the message names it. */
class QuotaError extends LimitError {
  override name = 'QuotaError';
}

// KEYS: docs, sections, version, log, chars, staged. ARGV: name, docJson, maxSections, maxDocs, epoch,
// logMax, projectCharQuota, chars, sections staged. The staged sections (id -> json) are taken out of
// their key whatever the outcome. The project's character count is computed from its documents the
// first time (data stored before the count existed). A replacement that does not grow the document
// passes even over the quota, so a project over a lowered quota can still shrink.
const UPLOAD = script(`
local staged = redis.call('HGETALL', KEYS[6])
redis.call('DEL', KEYS[6])
local added = tonumber(ARGV[9])
if #staged / 2 ~= added then return {'staged', #staged / 2} end
local old = redis.call('HGET', KEYS[1], ARGV[1])
local oldIds = {}
local oldChars = 0
if old then
  local o = cjson.decode(old)
  oldIds = o.sections
  oldChars = o.chars
end
if not old and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then return {'docs', redis.call('HLEN', KEYS[1])} end
local total = redis.call('HLEN', KEYS[2]) - #oldIds + added
if total > tonumber(ARGV[3]) then return {'sections', total} end
local used = redis.call('GET', KEYS[5])
if used then
  used = tonumber(used)
else
  used = 0
  for _, d in ipairs(redis.call('HVALS', KEYS[1])) do used = used + cjson.decode(d).chars end
end
local chars = tonumber(ARGV[8])
if chars > oldChars and used - oldChars + chars > tonumber(ARGV[7]) then return {'project_chars', used - oldChars} end
for _, id in ipairs(oldIds) do redis.call('HDEL', KEYS[2], id) end
for i = 1, #staged, 2 do redis.call('HSET', KEYS[2], staged[i], staged[i + 1]) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SET', KEYS[5], used - oldChars + chars)
local epoch, seq = nil, 0
local ver = redis.call('GET', KEYS[3])
if ver then epoch, seq = string.match(ver, '^(.+):(%d+)$') end
if not epoch then epoch, seq = ARGV[5], 0 end
seq = tonumber(seq) + 1
redis.call('SET', KEYS[3], epoch .. ':' .. seq)
redis.call('RPUSH', KEYS[4], seq .. ' ' .. ARGV[1])
redis.call('LTRIM', KEYS[4], -tonumber(ARGV[6]), -1)
if old then return {'replaced', oldChars} end
return {'created', 0}
`);

// KEYS: staged. ARGV: TTL (ms), then id/json pairs. One piece of an upload's sections, kept until its
// script stores them (or for the TTL after the last piece, when the upload stopped half-way).
const STAGE = script(`
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 0
`);

// KEYS: workspace chars. ARGV: chars, quota. Reserves the upload's characters before the project
// script runs (a project's keys and its workspace's are on different Cluster slots).
const RESERVE = script(`
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used + tonumber(ARGV[1]) > tonumber(ARGV[2]) then return {0, used} end
return {1, redis.call('INCRBY', KEYS[1], ARGV[1])}
`);

// KEYS: workspace chars. ARGV: chars. Gives back characters, never below zero.
const RELEASE = script(`
local v = tonumber(redis.call('GET', KEYS[1]) or '0') - tonumber(ARGV[1])
if v < 0 then v = 0 end
redis.call('SET', KEYS[1], v)
return v
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

export interface UploadOptions {
  onEmbedFailure?: (err: unknown) => void;
  /** Whose share of the event loop's slices the work takes (the workspace); default: the project. */
  tenant?: string;
  /** Absent: no storage quota (scripts and benches); the gateway always passes the plan's. */
  quota?: UploadQuota;
}

export async function uploadDocument(
  redis: Redis,
  embedder: Embedder,
  project: string,
  input: { name: string; content: string; path?: string | null },
  options: UploadOptions = {},
): Promise<UploadResult> {
  if (input.content.length > LIMITS.documentChars)
    throw new LimitError(
      `The document is ${input.content.length} characters; the limit is ${LIMITS.documentChars}. Split it into several documents.`,
    );
  const k = kbKeys(project);
  const s = slicer(options.tenant ?? project);
  // Work starts in its tenant's round of slices, not ahead of the tenants already waiting.
  await s.maybeYield();
  const split = await splitMarkdownInSlices(input.content, input.name, s);
  const docId = randomBytes(6).toString('base64url');
  const sections: StoredSection[] = split.map((sec, ord) => ({
    id: `${docId}.${ord}`,
    doc: input.name,
    path: sec.path.length ? sec.path : [sec.heading],
    heading: sec.heading,
    text: sec.text,
    ord,
    emb: '',
    vec: '',
  }));
  const record: DocumentRecord = {
    name: input.name,
    path: input.path ?? null,
    sections: sections.map((sec) => sec.id),
    chars: input.content.length,
    uploadedAt: new Date().toISOString(),
  };
  // A random epoch, used only when the project has no version yet: after a flush or a failover the
  // sequence restarts under a new epoch, so no replica trusts a stale cached index.
  const epoch = randomBytes(9).toString('base64url');
  const quota = options.quota;
  const args: string[] = [
    input.name,
    JSON.stringify(record),
    String(LIMITS.sectionsPerProject),
    String(LIMITS.documentsPerProject),
    epoch,
    String(CHANGE_LOG_MAX),
    String(quota?.projectChars ?? Number.MAX_SAFE_INTEGER),
    String(record.chars),
    String(sections.length),
  ];
  const ws = quota?.workspace;
  const wsKey = ws ? kbWorkspaceKeys(ws.id).chars : '';
  if (ws) {
    const [ok, used] = (await runScript(redis, RESERVE, [wsKey], [record.chars, ws.chars])) as [number, number];
    if (!ok)
      throw new QuotaError(
        `Workspace storage quota: the workspace's projects hold ${used} characters; this document (${record.chars}) would pass its quota of ${ws.chars}.`,
      );
  }
  const staged = k.staged(docId);
  let status: string;
  let n: number;
  try {
    await embedAndStage(redis, embedder, staged, sections, s, options);
    [status, n] = (await runScript(redis, UPLOAD, [k.docs, k.sections, k.version, k.log, k.chars, staged], args)) as [string, number];
  } catch (err) {
    if (ws) await runScript(redis, RELEASE, [wsKey], [record.chars]);
    // Best effort: what is left of the staged sections expires with STAGED_TTL_MS anyway.
    await redis.del(staged).catch(() => undefined);
    throw err;
  }
  // Stored: the replaced document's characters leave the workspace; refused: the reservation does.
  if (ws && status !== 'created') await runScript(redis, RELEASE, [wsKey], [status === 'replaced' ? n : record.chars]);
  if (status === 'docs')
    throw new LimitError(`The project already holds ${n} documents, the limit. Re-upload an existing name to replace it instead.`);
  if (status === 'sections')
    throw new LimitError(`This upload would bring the project to ${n} sections; the limit is ${LIMITS.sectionsPerProject}.`);
  if (status === 'project_chars')
    throw new QuotaError(
      `Project storage quota: the project's other documents hold ${n} characters; this document (${record.chars}) would pass its quota of ${quota?.projectChars}.`,
    );
  if (status === 'staged') throw new Error(`the upload's staged sections expired before it was stored (${n} of ${sections.length} left)`);
  return { document: record, replaced: status === 'replaced', headings: sections.map((sec) => sec.heading) };
}

/**
 * Embeds the sections in batches and sends them, as JSON with their vectors, to the staging key in
 * commands of at most STAGE_CHARS characters, all in slices. A section's JSON is kept only until
 * its command is sent, and its vector only as part of it.
 */
async function embedAndStage(
  redis: Redis,
  embedder: Embedder,
  staged: string,
  sections: StoredSection[],
  s: Slicer,
  options: UploadOptions,
) {
  let piece: string[] = [String(STAGED_TTL_MS)];
  let chars = 0;
  const send = async () => {
    if (piece.length > 1) await runScript(redis, STAGE, [staged], piece);
    [piece, chars] = [[String(STAGED_TTL_MS)], 0];
  };
  let embedding = true;
  const texts = sections.map(sectionEmbeddingText);
  for (const [start, end] of embeddingBatches(texts)) {
    let vectors: Float32Array[] = [];
    if (embedding)
      try {
        vectors = await embedder.embed(texts.slice(start, end));
      } catch (err) {
        // Keyword search works without vectors; the index embeds missing ones when it next loads.
        options.onEmbedFailure?.(err);
        embedding = false;
      }
    for (let i = start; i < end; i++) {
      const sec = sections[i] as StoredSection;
      const v = vectors[i - start];
      const json = JSON.stringify(v ? { ...sec, emb: embedder.id, vec: vectorToBase64(v) } : sec);
      piece.push(sec.id, json);
      chars += json.length;
      if (chars >= STAGE_CHARS) await send();
    }
    await s.maybeYield();
  }
  await send();
}
