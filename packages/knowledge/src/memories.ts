/**
 * Project memories (svc_remember / svc_recall): typed notes shared by everyone on the project.
 * Records live in one hash, expiries in a sorted set; writing sweeps the expired ones in the same
 * script, and reads skip any that expired since. svc_recall scores every memory of the project
 * with BM25 built on each call, so what a call costs is bounded by what a project may hold:
 * MEMORY_LIMITS (docs/knowledge-tools.md "Memories"), and the build runs in time slices (slicer.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { Bm25, scoreBm25 } from './bm25.ts';
import { kbKeys } from './keys.ts';
import { runScript, script } from '@svc/limits';
import { slicer } from './slicer.ts';

export const MEMORY_TYPES = ['fact', 'decision', 'learning', 'preference', 'note'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];
/**
 * A project's memories: at most `perProject` of them and `bytesPerProject` bytes of stored
 * records (about 100 ms of index building on a 2-core machine, in 8 ms slices; without the byte
 * bound 5,000 memories of 10,000 characters took over 4 s a call); each kept at most a year.
 */
export const MEMORY_LIMITS = { perProject: 5_000, bytesPerProject: 1_048_576, maxTtlSeconds: 365 * 86_400 } as const;

export interface Memory {
  id: string;
  type: MemoryType;
  text: string;
  createdBy: string;
  createdAt: string;
  expiresAt: string | null;
}

// KEYS: records hash, expiry zset, bytes. ARGV: now, expiry score, id, JSON, count limit, byte limit.
// Returns {stored (1/0), memories, bytes}. The byte total is summed once for memories written
// before it was kept, then moved with every write and sweep.
const REMEMBER = script(`
local bytes = tonumber(redis.call('GET', KEYS[3]) or '-1')
if bytes < 0 then
  bytes = 0
  for _, id in ipairs(redis.call('HKEYS', KEYS[1])) do bytes = bytes + redis.call('HSTRLEN', KEYS[1], id) end
end
local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
for _, id in ipairs(gone) do
  bytes = bytes - redis.call('HSTRLEN', KEYS[1], id)
  redis.call('HDEL', KEYS[1], id)
end
if #gone > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1]) end
local n = redis.call('HLEN', KEYS[1])
local size = string.len(ARGV[4])
if n >= tonumber(ARGV[5]) or bytes + size > tonumber(ARGV[6]) then
  redis.call('SET', KEYS[3], bytes)
  return {0, n, bytes}
end
redis.call('HSET', KEYS[1], ARGV[3], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('SET', KEYS[3], bytes + size)
return {1, n + 1, bytes + size}
`);

/** Why a memory was not stored: the project holds `memories` of them, `bytes` bytes in all. */
export interface MemoriesFull {
  full: { memories: number; bytes: number };
}

export async function remember(
  redis: Redis,
  project: string,
  input: { text: string; type: MemoryType; ttlSeconds?: number; createdBy: string },
): Promise<{ memory: Memory } | MemoriesFull> {
  const now = Date.now();
  const expires = input.ttlSeconds ? now + input.ttlSeconds * 1000 : null;
  const memory: Memory = {
    id: `mem_${randomBytes(8).toString('base64url')}`,
    type: input.type,
    text: input.text,
    createdBy: input.createdBy,
    createdAt: new Date(now).toISOString(),
    expiresAt: expires ? new Date(expires).toISOString() : null,
  };
  const k = kbKeys(project);
  const [ok, memories, bytes] = (await runScript(
    redis,
    REMEMBER,
    [k.memories, k.memoryExpiry, k.memoryBytes],
    [now, expires ?? '+inf', memory.id, JSON.stringify(memory), MEMORY_LIMITS.perProject, MEMORY_LIMITS.bytesPerProject],
  )) as [number, number, number];
  return ok ? { memory } : { full: { memories, bytes } };
}

/**
 * Memories matching the query (BM25), newest first among equals; of one type when given. `tenant`:
 * whose share of the event loop's slices the build takes (the project's workspace; slicer.ts).
 */
export async function recall(
  redis: Redis,
  project: string,
  input: { query: string; type?: MemoryType; limit: number },
  tenant = project,
): Promise<{ memory: Memory; score: number }[]> {
  const now = new Date().toISOString();
  const s = slicer(tenant);
  const all: Memory[] = [];
  for (const j of await redis.hvals(kbKeys(project).memories)) {
    const m = JSON.parse(j) as Memory;
    if ((!m.expiresAt || m.expiresAt > now) && (!input.type || m.type === input.type)) all.push(m);
    await s.maybeYield();
  }
  all.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const index = new Bm25();
  for (const [slot, m] of all.entries()) {
    index.add(slot, m.type, m.text);
    await s.maybeYield();
  }
  return scoreBm25(index, input.query, input.limit).map((r) => ({ memory: all[r.doc] as Memory, score: r.score }));
}
