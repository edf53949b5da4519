/** Runs a Lua script by SHA, loading it on NOSCRIPT, without adding commands to the shared client. */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface Script {
  source: string;
  sha: string;
}

export function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

export async function runScript(redis: Redis, s: Script, keys: string[], args: (string | number)[]): Promise<unknown> {
  try {
    return await redis.evalsha(s.sha, keys.length, ...keys, ...args);
  } catch (err) {
    if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
    return redis.eval(s.source, keys.length, ...keys, ...args);
  }
}
