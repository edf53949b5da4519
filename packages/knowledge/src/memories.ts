/**
 * Project memories (svc_remember / svc_recall): typed notes shared by everyone on the project.
 * Records live in one hash, expiries in a sorted set; writing sweeps the expired ones in the same
 * script, and reads skip any that expired since.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { buildBm25, scoreBm25 } from './bm25.ts';
import { kbKeys } from './keys.ts';
import { runScript, script } from '@svc/limits';

export const MEMORY_TYPES = ['fact', 'decision', 'learning', 'preference', 'note'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];
export const MEMORY_LIMITS = { perProject: 5_000, maxTtlSeconds: 365 * 86_400 } as const;

export interface Memory {
  id: string;
  type: MemoryType;
  text: string;
  createdBy: string;
  createdAt: string;
  expiresAt: string | null;
}

// KEYS: records hash, expiry zset. ARGV: now, expiry score, id, JSON, limit.
const REMEMBER = script(`
local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
for _, id in ipairs(gone) do redis.call('HDEL', KEYS[1], id) end
if #gone > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1]) end
local n = redis.call('HLEN', KEYS[1])
if n >= tonumber(ARGV[5]) then return {0, n} end
redis.call('HSET', KEYS[1], ARGV[3], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return {1, n + 1}
`);

export async function remember(
  redis: Redis,
  project: string,
  input: { text: string; type: MemoryType; ttlSeconds?: number; createdBy: string },
): Promise<{ memory: Memory } | { full: number }> {
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
  const [ok, n] = (await runScript(
    redis,
    REMEMBER,
    [k.memories, k.memoryExpiry],
    [now, expires ?? '+inf', memory.id, JSON.stringify(memory), MEMORY_LIMITS.perProject],
  )) as [number, number];
  return ok ? { memory } : { full: n };
}

/** Memories matching the query (BM25), newest first among equals; of one type when given. */
export async function recall(
  redis: Redis,
  project: string,
  input: { query: string; type?: MemoryType; limit: number },
): Promise<{ memory: Memory; score: number }[]> {
  const now = new Date().toISOString();
  const all = (await redis.hvals(kbKeys(project).memories))
    .map((j) => JSON.parse(j) as Memory)
    .filter((m) => (!m.expiresAt || m.expiresAt > now) && (!input.type || m.type === input.type))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const index = buildBm25(all.map((m) => ({ heading: m.type, text: m.text })));
  return scoreBm25(index, input.query, input.limit).map((r) => ({ memory: all[r.doc] as Memory, score: r.score }));
}
