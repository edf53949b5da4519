import { runScript, script } from '@svc/limits';
import type { Redis } from './redis.ts';
import { AccountError } from './errors.ts';

/**
 * How many of each thing a tenant may hold (docs/management.md "Collection limits"): far above
 * what a real team reaches, low enough that listing a whole collection stays one quick answer.
 */
export const COLLECTION_LIMITS = {
  /** Live (unrevoked, unexpired) API keys of one project. */
  keysPerProject: 500,
  /** Projects of one workspace; it also bounds a service account's grants (one per project). */
  projectsPerWorkspace: 200,
  /** Live service accounts of one workspace (a revoked one frees its place until rotated back). */
  serviceAccountsPerWorkspace: 100,
  /** People given a role on one project. */
  membersPerProject: 1000,
  /** Access requests of one project awaiting a decision. */
  pendingRequestsPerProject: 500,
  /** Invitations of one project awaiting their address's owner (each also ends after 7 days). */
  pendingInvitationsPerProject: 50,
} as const;

export type CollectionLimits = { [K in keyof typeof COLLECTION_LIMITS]: number };

/** What a limit check reads: the connection, the limits and the clock (every StoreContext has them). */
interface LimitContext {
  redis: Redis;
  limits: CollectionLimits;
  now: () => number;
}

/** The refusals past each limit: the limit, its value, and what frees room. */
const LIMIT_MESSAGES: { [K in keyof CollectionLimits]: (n: number) => string } = {
  keysPerProject: (n) => `This project already has ${n} live API keys, the limit. Revoke keys you no longer use.`,
  projectsPerWorkspace: (n) => `This workspace already has ${n} projects, the limit.`,
  serviceAccountsPerWorkspace: (n) =>
    `This workspace already has ${n} live service accounts, the limit. Revoke service accounts you no longer use.`,
  membersPerProject: (n) => `This project already has ${n} members, the limit. Remove members who no longer need it.`,
  pendingRequestsPerProject: (n) =>
    `This project already has ${n} access requests awaiting a decision, the limit. Ask its admins to decide them first.`,
  pendingInvitationsPerProject: (n) =>
    `This project already has ${n} pending invitations, the limit. Cancel invitations that were not accepted.`,
};

// Each script counts and adds in one step, on one key, so concurrent creations never pass the
// limit and the script runs on Redis Cluster. 1: added (or already there), 0: at the limit.
const SET_ADD = script(`
if redis.call('SISMEMBER', KEYS[1], ARGV[2]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[2])
return 1`);
const HASH_SET = script(`
if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
return 1`);
/** A sorted set scored by expiry time: what has expired by ARGV[2] is dropped before counting. */
const LIVE_ADD = script(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZSCORE', KEYS[1], ARGV[4]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
return 1`);

function refuse(ctx: LimitContext, limit: keyof CollectionLimits): never {
  throw new AccountError('limit', LIMIT_MESSAGES[limit](ctx.limits[limit]));
}

/** Adds `member` to the set `key` unless it holds `limit`'s value already. */
export async function addToSet(ctx: LimitContext, limit: keyof CollectionLimits, key: string, member: string): Promise<void> {
  if ((await runScript(ctx.redis, SET_ADD, [key], [ctx.limits[limit], member])) !== 1) refuse(ctx, limit);
}

/** Sets `field` of the hash `key` unless that would make more fields than `limit`'s value. */
export async function setInHash(
  ctx: LimitContext,
  limit: keyof CollectionLimits,
  key: string,
  field: string,
  value: string,
): Promise<void> {
  if ((await runScript(ctx.redis, HASH_SET, [key], [ctx.limits[limit], field, value])) !== 1) refuse(ctx, limit);
}

/** Adds `member`, live until `expiresAt` (null: until removed), unless `limit`'s value are live already. */
export async function addLive(
  ctx: LimitContext,
  limit: keyof CollectionLimits,
  key: string,
  member: string,
  expiresAt: number | null,
): Promise<void> {
  const added = await runScript(ctx.redis, LIVE_ADD, [key], [ctx.limits[limit], ctx.now(), expiresAt ?? '+inf', member]);
  if (added !== 1) refuse(ctx, limit);
}
