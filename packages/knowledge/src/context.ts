/**
 * Session context (svc_inject): short texts a client adds for its own session, read back by
 * svc_context_query. One sorted set per project and session, scored by each entry's expiry, so
 * expired entries are dropped by score and the key itself expires with its last entry.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { kbKeys } from './keys.ts';
import { runScript, script } from '@svc/limits';

export const CONTEXT_LIMITS = {
  entriesPerSession: 50,
  defaultTtlSeconds: 86_400,
  maxTtlSeconds: 7 * 86_400,
} as const;

export interface ContextEntry {
  id: string;
  text: string;
  createdAt: string;
  expiresAt: string;
}

// KEYS: context zset. ARGV: now ms, expiry ms, member JSON, max entries.
const INJECT = script(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[4]) then return {0, n} end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return {1, n + 1}
`);

/** Session ids are hashed into the key: they can hold a key id, and need not be readable in Redis. */
function sessionHash(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('base64url').slice(0, 22);
}

export async function injectContext(
  redis: Redis,
  project: string,
  sessionId: string,
  text: string,
  ttlSeconds: number = CONTEXT_LIMITS.defaultTtlSeconds,
): Promise<{ entry: ContextEntry; entries: number } | { full: number }> {
  const now = Date.now();
  const expires = now + ttlSeconds * 1000;
  const entry: ContextEntry = {
    id: `ctx_${randomBytes(6).toString('base64url')}`,
    text,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(expires).toISOString(),
  };
  const key = kbKeys(project).context(sessionHash(sessionId));
  const [ok, n] = (await runScript(redis, INJECT, [key], [now, expires, JSON.stringify(entry), CONTEXT_LIMITS.entriesPerSession])) as [
    number,
    number,
  ];
  return ok ? { entry, entries: n } : { full: n };
}

/** The session's live entries, oldest first. */
export async function readContext(redis: Redis, project: string, sessionId: string): Promise<ContextEntry[]> {
  const key = kbKeys(project).context(sessionHash(sessionId));
  const members = await redis.zrangebyscore(key, `(${Date.now()}`, '+inf');
  return members.map((m) => JSON.parse(m) as ContextEntry).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}
