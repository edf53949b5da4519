/**
 * The oidc-provider records' writes (docs/auth-service.md "Storage round trips"): each a one-key
 * script, so an operation's commands leave in one write on a connection that batches each
 * turn's writes, and run on Redis Cluster. The record shapes and keys are in oidc-records.ts.
 */
import { runScript, script } from '@svc/limits';
import { OIDC_CONSUMED_FIELD, encodeOidcPayload, OIDC_PAYLOAD_FIELD, type OidcPayload } from './oidc-records.ts';
import type { Redis } from './redis.ts';

/**
 * KEYS[1] the record; ARGV[1] its payload; ARGV[2] seconds (0: none). The payload and its lifetime
 * in one command (a record is never left without it), a script rather than a MULTI (three
 * commands where a script is one).
 */
const WRITE = script(
  `redis.call('HSET', KEYS[1], '${OIDC_PAYLOAD_FIELD}', ARGV[1]) local s = tonumber(ARGV[2]) ` +
    `if s > 0 then redis.call('EXPIRE', KEYS[1], s) end return 0`,
);

/** Stores a record's payload with its lifetime (0 or less: none) in one command. */
export async function writeOidcRecord(redis: Redis, key: string, payload: OidcPayload, expiresInSeconds: number): Promise<void> {
  await runScript(redis, WRITE, [key], [encodeOidcPayload(payload), expiresInSeconds > 0 ? expiresInSeconds : 0]);
}

/**
 * KEYS[1] the record; ARGV[1] the epoch second; ARGV[2] a channel and ARGV[3] a message to publish,
 * or ARGV[2] empty. Claims the record's one use: only a record that exists and was not consumed yet
 * is marked consumed, then the message published, in one command, so of any number of concurrent
 * consumers exactly one gets 1 (docs/security.md "Single-use values") and a subscriber hearing the
 * message reads the record consumed. 0: consumed before; -1: no such record. One key, so it runs on
 * Redis Cluster (PUBLISH in a script reaches every node's subscribers).
 */
const CONSUME = script(
  `if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end ` +
    `if redis.call('HSETNX', KEYS[1], '${OIDC_CONSUMED_FIELD}', ARGV[1]) == 0 then return 0 end ` +
    `if ARGV[2] ~= '' then redis.call('PUBLISH', ARGV[2], ARGV[3]) end return 1`,
);

/** What a consume found: the record is now consumed by this call, was consumed before, or does not exist. */
export type OidcConsumeOutcome = 'consumed' | 'used' | 'absent';

/**
 * Marks a record consumed now if it exists and is not consumed yet, and then publishes `announce`
 * (`[channel, message]`) in the same command (docs/redis-schema.md "auth-service (oidc-provider)").
 */
export async function consumeOidcRecord(
  redis: Redis,
  key: string,
  nowSeconds: number,
  announce?: [string, string],
): Promise<OidcConsumeOutcome> {
  const outcome = Number(await runScript(redis, CONSUME, [key], [nowSeconds, ...(announce ?? ['', ''])]));
  return outcome === 1 ? 'consumed' : outcome === 0 ? 'used' : 'absent';
}

/**
 * KEYS[1] a set; ARGV[1] seconds (0: none); ARGV[2..] the members. Adds the members and raises the
 * set's lifetime to at least ARGV[1], never lowering it: a set of records lives as long as its
 * longest-lived member. One key, one command (Redis Cluster).
 */
const ADD_TO_SET = script(
  `redis.call('SADD', KEYS[1], unpack(ARGV, 2)) local s = tonumber(ARGV[1]) ` +
    `if s > 0 and redis.call('TTL', KEYS[1]) < s then redis.call('EXPIRE', KEYS[1], s) end return 0`,
);

/** Adds `member` (or each of several) to the set at `key`, whose lifetime is raised to at least `expiresInSeconds` (0: left as it is). */
export async function addToRecordSet(
  redis: Redis,
  key: string,
  member: string | readonly string[],
  expiresInSeconds: number,
): Promise<void> {
  const members = typeof member === 'string' ? [member] : member;
  if (members.length === 0) return;
  await runScript(redis, ADD_TO_SET, [key], [expiresInSeconds > 0 ? expiresInSeconds : 0, ...members]);
}
