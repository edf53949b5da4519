/**
 * Brings data written by an earlier release up to this one (docs/operations.md "Upgrading"): the
 * indexes added since 0.1.0 are filled from the records they index — live keys per project,
 * live service accounts per workspace, pending access requests per project (docs/management.md
 * "Collection limits"), each project's decided access requests trimmed to the last
 * DECIDED_REQUESTS_KEPT ("Access request lifecycle"), revoked keys and service accounts trimmed
 * to the last REVOKED_KEYS_KEPT and REVOKED_SERVICE_ACCOUNTS_KEPT ("Lists and pages") and the audit log's per-action index (docs/audit.md "Reading"). Safe to run
 * while the services serve and to run again; every read is paged. Each item is its own small
 * write that never acts on a stale read: an index entry is added, then its record read again and
 * the entry taken back if a revocation or decision came meanwhile (every such change writes its
 * record before it leaves the index), and a latest pointer is set only where none is kept.
 */
import { runScript, script } from '@svc/limits';
import { AUDIT_ACTIONS, type AuditAction } from './audit.ts';
import type { ApiKeyStore } from './api-keys.ts';
import { requesterField } from './access-request-rules.ts';
import type { AccessRequestStore } from './access-requests.ts';
import type { BotStore } from './bots.ts';
import type { StoreContext } from './context.ts';
import { trimRevokedKeys, trimRevokedServiceAccounts } from './revoked-records.ts';
import { K } from './keys.ts';
import { scanKeys } from './scan.ts';

/** Entries of the audit log read per command while its index is rebuilt. */
const AUDIT_PAGE = 500;

export interface MigrationReport {
  projects: number;
  liveKeys: number;
  pendingRequests: number;
  /** Decided access requests dropped past a project's DECIDED_REQUESTS_KEPT (docs/management.md "Access request lifecycle"). */
  decidedRequestsTrimmed: number;
  workspaces: number;
  liveServiceAccounts: number;
  /** Revoked keys forgotten past a project's REVOKED_KEYS_KEPT (docs/management.md "Lists and pages"). */
  revokedKeysTrimmed: number;
  /** Revoked service accounts forgotten past a workspace's REVOKED_SERVICE_ACCOUNTS_KEPT. */
  revokedServiceAccountsTrimmed: number;
  auditEntriesIndexed: number;
}

// KEYS: the live index, the rebuilt one. ARGV: the last log id the rebuild read. Entries appended
// to the live index since then are carried over, then the rebuilt index replaces the live one.
const SWAP_INDEX = script(`
local newer = redis.call('XRANGE', KEYS[1], '(' .. ARGV[1], '+')
for _, e in ipairs(newer) do redis.call('XADD', KEYS[2], e[1], 'a', '') end
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('RENAME', KEYS[2], KEYS[1]) end
return #newer`);

const isAction = (a: string | undefined): a is AuditAction => (AUDIT_ACTIONS as readonly string[]).includes(a ?? '');

/** The slug of `key` when it is a record of the family `prefix` (not one of its sub-keys). */
const slugOf = (key: string, prefix: string): string | null => (key.slice(prefix.length).includes(':') ? null : key.slice(prefix.length));

export async function migrate(
  ctx: StoreContext,
  stores: { keys: ApiKeyStore; bots: BotStore; accessRequests: AccessRequestStore },
): Promise<MigrationReport> {
  const report: MigrationReport = {
    projects: 0,
    liveKeys: 0,
    pendingRequests: 0,
    decidedRequestsTrimmed: 0,
    workspaces: 0,
    liveServiceAccounts: 0,
    revokedKeysTrimmed: 0,
    revokedServiceAccountsTrimmed: 0,
    auditEntriesIndexed: 0,
  };
  const { redis } = ctx;
  /** A key that is there, not revoked and not expired. */
  const liveKey = (rec: Awaited<ReturnType<ApiKeyStore['getById']>>): rec is NonNullable<typeof rec> =>
    rec !== null && !rec.revoked && (rec.expiresAt === null || rec.expiresAt > ctx.now());
  /** Whether the service account is listed revoked, or gone (forgotten after its revocation). */
  const listedRevoked = async (workspace: string, id: string) =>
    (await redis.zscore(K.workspaceRevokedBots(workspace), id)) !== null || (await redis.exists(K.bot(id))) === 0;
  const projectPrefix = K.project('');
  for await (const batch of scanKeys(redis, `${projectPrefix}*`))
    for (const key of batch) {
      const slug = slugOf(key, projectPrefix);
      if (!slug) continue;
      report.projects++;
      for (const id of await redis.smembers(K.projectKeys(slug))) {
        const rec = await stores.keys.getById(id);
        // An earlier release kept every revoked key, with no time of revocation: ordered by creation.
        if (rec?.revoked) await redis.zadd(K.projectRevokedKeys(slug), 'NX', rec.createdAt, id);
        if (!liveKey(rec)) continue;
        await redis.zadd(K.projectLiveKeys(slug), rec.expiresAt ?? '+inf', id);
        // Added, then read again: a revocation since the first read (its flag is written before it
        // leaves the index: ApiKeyStore.revoke) is seen here and undone, never brought back.
        if (liveKey(await stores.keys.getById(id))) report.liveKeys++;
        else await redis.zrem(K.projectLiveKeys(slug), id);
      }
      // Oldest first: each requester's latest request is the last one listed.
      const latest = new Map<string, string>();
      for (const id of await redis.zrange(K.projectAccessRequests(slug), 0, -1)) {
        const request = await stores.accessRequests.get(id);
        if (request) latest.set(requesterField(request.requester), id);
        if (request?.status !== 'pending') continue;
        await redis.sadd(K.projectPendingRequests(slug), id);
        // Added, then read again: a decision since the first read (its status is written before it
        // leaves the set: AccessRequestStore.decide) is seen here and undone.
        if ((await stores.accessRequests.get(id))?.status === 'pending') report.pendingRequests++;
        else await redis.srem(K.projectPendingRequests(slug), id);
      }
      // Only where none is kept: one kept was set by a request filed since (CLAIM_LATEST of
      // access-requests.ts), newer than anything this read listed, and is never written over.
      for (const [field, id] of latest) await redis.hsetnx(K.projectLatestRequests(slug), field, id);
      for (let dropped = 1; dropped > 0;) {
        dropped = await trimRevokedKeys(ctx, slug);
        report.revokedKeysTrimmed += dropped;
      }
      // An earlier release kept every decided request: trimmed to the last DECIDED_REQUESTS_KEPT.
      for (let dropped = 1; dropped > 0;) {
        dropped = await stores.accessRequests.trimDecided(slug);
        report.decidedRequestsTrimmed += dropped;
      }
    }
  const workspacePrefix = K.workspace('');
  for await (const batch of scanKeys(redis, `${workspacePrefix}*`))
    for (const key of batch) {
      const slug = slugOf(key, workspacePrefix);
      if (!slug) continue;
      report.workspaces++;
      for (const id of await redis.smembers(K.workspaceBots(slug))) {
        const bot = await stores.bots.get(id);
        const botKey = bot ? await stores.keys.getById(bot.keyId) : null;
        if (bot && (!botKey || botKey.revoked)) await redis.zadd(K.workspaceRevokedBots(slug), 'NX', bot.createdAt, id);
        if (!botKey || botKey.revoked || (await listedRevoked(slug, id))) continue;
        await redis.sadd(K.workspaceLiveBots(slug), id);
        // Added, then read again: a revocation lists the account revoked before it leaves the live
        // set (BotStore.revoke), so one since the first read is seen here and undone.
        if (await listedRevoked(slug, id)) await redis.srem(K.workspaceLiveBots(slug), id);
        else report.liveServiceAccounts++;
      }
      for (let dropped = 1; dropped > 0;) {
        dropped = await trimRevokedServiceAccounts(ctx, slug);
        report.revokedServiceAccountsTrimmed += dropped;
      }
      report.auditEntriesIndexed += await reindexAudit(ctx, slug);
    }
  return report;
}

/** Rebuilds each action's index of a workspace's audit log from the log itself. */
async function reindexAudit(ctx: StoreContext, workspace: string): Promise<number> {
  const { redis } = ctx;
  const log = K.auditLog(workspace);
  const rebuilt = (action: string) => `${K.auditByAction(workspace, action)}:rebuild`;
  for (const action of AUDIT_ACTIONS) await redis.del(rebuilt(action));
  let from = '-';
  let last = '';
  let n = 0;
  for (;;) {
    const page = await redis.xrange(log, from, '+', 'COUNT', AUDIT_PAGE);
    for (const [id, fields] of page) {
      let action: string | undefined;
      for (let i = 0; i < fields.length; i += 2) if (fields[i] === 'action') action = fields[i + 1];
      if (isAction(action)) await redis.xadd(rebuilt(action), id, 'a', '');
      n++;
      last = id;
    }
    if (page.length < AUDIT_PAGE) break;
    from = `(${last}`;
  }
  if (!last) return 0;
  for (const action of AUDIT_ACTIONS) await runScript(redis, SWAP_INDEX, [K.auditByAction(workspace, action), rebuilt(action)], [last]);
  return n;
}
