/**
 * The one Lua runner: a script is sent by its SHA1 (EVALSHA) and its source only when Redis does
 * not know it yet (NOSCRIPT: a new server, a restart, SCRIPT FLUSH), which also caches it there.
 * Nothing is added to the shared client (no `defineCommand`), so every package may use it.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface Script {
  source: string;
  sha: string;
}

/** A script with its SHA1, computed once where it is defined. */
export function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/** Runs `s` over `keys` and `args`: EVALSHA, then EVAL on NOSCRIPT. */
export async function runScript(redis: Redis, s: Script, keys: string[], args: (string | number)[]): Promise<unknown> {
  try {
    return await redis.evalsha(s.sha, keys.length, ...keys, ...args);
  } catch (err) {
    if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
    return redis.eval(s.source, keys.length, ...keys, ...args);
  }
}
