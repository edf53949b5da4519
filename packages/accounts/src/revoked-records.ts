/**
 * Revoked keys and service accounts are kept for a while and then forgotten (docs/management.md
 * "Lists and pages"): each project keeps its last REVOKED_KEYS_KEPT revoked keys, each workspace
 * its last REVOKED_SERVICE_ACCOUNTS_KEPT revoked service accounts, so listing them stays one quick
 * answer however many were revoked. Every revocation stays in the audit log, the lasting record.
 * A forgotten key has no record: the gateway refuses it as an unknown key (401), as it refused it
 * revoked.
 */
import type { StoreContext } from './context.ts';
import { K } from './keys.ts';

/** Revoked keys a project keeps (its newest revoked); older ones leave Redis. */
export const REVOKED_KEYS_KEPT = 200;
/** Revoked service accounts a workspace keeps (its newest revoked); older ones leave Redis with their keys. */
export const REVOKED_SERVICE_ACCOUNTS_KEPT = 100;
/** The most records one trim forgets, so one revocation does bounded work (migrate() calls it again). */
const TRIM_BATCH = 100;

/** Deletes a key's record, its id and every index naming it. Safe to run twice. */
export async function forgetKey(ctx: StoreContext, id: string): Promise<void> {
  const { redis } = ctx;
  const hash = await redis.get(K.apiKeyById(id));
  const rec = hash ? await redis.hmget(K.apiKey(hash), 'project', 'userId') : [null, null];
  const [project, userId] = rec;
  if (project) await redis.srem(K.projectKeys(project), id);
  if (project) await redis.zrem(K.projectLiveKeys(project), id);
  if (userId) await redis.srem(K.userKeys(userId), id);
  await redis.zrem(K.keyExpiries(), id);
  if (hash) await redis.del(K.apiKey(hash));
  await redis.del(K.apiKeyById(id));
}

/**
 * The oldest members of the sorted set `index` past `kept`, at most TRIM_BATCH: each is forgotten
 * by `forget`, then leaves the index (a crash between them leaves it there for the next trim).
 */
async function trimIndex(ctx: StoreContext, index: string, kept: number, forget: (id: string) => Promise<void>): Promise<number> {
  const excess = Math.min((await ctx.redis.zcard(index)) - kept, TRIM_BATCH);
  if (excess <= 0) return 0;
  const oldest = await ctx.redis.zrange(index, 0, excess - 1);
  for (const id of oldest) await forget(id);
  if (oldest.length > 0) await ctx.redis.zrem(index, ...oldest);
  return oldest.length;
}

/** Records a project key's revocation (first time only) and forgets the project's oldest revoked past REVOKED_KEYS_KEPT. */
export async function keepRevokedKey(ctx: StoreContext, project: string, id: string, at: number): Promise<number> {
  await ctx.redis.zadd(K.projectRevokedKeys(project), 'NX', at, id);
  return trimRevokedKeys(ctx, project);
}

/** Forgets the project's oldest revoked keys past REVOKED_KEYS_KEPT (at most TRIM_BATCH); how many. */
export function trimRevokedKeys(ctx: StoreContext, project: string): Promise<number> {
  return trimIndex(ctx, K.projectRevokedKeys(project), REVOKED_KEYS_KEPT, (id) => forgetKey(ctx, id));
}

/** Deletes a revoked service account: its record, grants, client keys, keys and place in its workspace's list. */
async function forgetServiceAccount(ctx: StoreContext, workspace: string, id: string): Promise<void> {
  const { redis } = ctx;
  const [keyId, previousKeyId] = await redis.hmget(K.bot(id), 'keyId', 'previousKeyId');
  for (const key of [keyId, previousKeyId]) if (key) await forgetKey(ctx, key);
  await redis.del(K.botGrants(id), K.botClientKeys(id));
  await redis.srem(K.workspaceBots(workspace), id);
  await redis.del(K.bot(id));
}

/** Forgets the workspace's oldest revoked service accounts past REVOKED_SERVICE_ACCOUNTS_KEPT (at most TRIM_BATCH); how many. */
export function trimRevokedServiceAccounts(ctx: StoreContext, workspace: string): Promise<number> {
  return trimIndex(ctx, K.workspaceRevokedBots(workspace), REVOKED_SERVICE_ACCOUNTS_KEPT, (id) => forgetServiceAccount(ctx, workspace, id));
}

/**
 * Personal keys (svc-user-) a person holds, whatever their state; past it the oldest are ended and
 * forgotten when a new one is made, so a person's key list and its index stay this size however
 * often they sign in (docs/management.md "Lists and pages").
 */
export const PERSONAL_KEYS_KEPT = 20;

/**
 * Drops from a person's index the ids of keys whose record ended, then ends (`revoke`: every
 * gateway refuses the key within a second) and forgets the oldest past PERSONAL_KEYS_KEPT.
 * Reads at most PERSONAL_KEYS_KEPT + 1 records after each new key. How many were forgotten.
 */
export async function trimPersonalKeys(
  ctx: StoreContext,
  userId: string,
  keys: {
    listForUser(userId: string): Promise<{ id: string; revoked: boolean }[]>;
    revoke(id: string): Promise<unknown>;
  },
): Promise<number> {
  const held = await keys.listForUser(userId);
  const excess = held.slice(PERSONAL_KEYS_KEPT);
  for (const key of excess) {
    if (!key.revoked) await keys.revoke(key.id);
    await forgetKey(ctx, key.id);
  }
  return excess.length;
}
