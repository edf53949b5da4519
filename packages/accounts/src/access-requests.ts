import type { KeyLevel } from '@svc/policy';
import type { ApiKeyStore } from './api-keys.ts';
import type { AuditLog } from './audit.ts';
import type { AuditAgent, AuditAgentRef, AuditPrincipal } from './audit-parties.ts';
import type { BotStore } from './bots.ts';
import { addToSet } from './collection-limits.ts';
import type { StoreContext } from './context.ts';
import { newId } from './context.ts';
import { AccountError } from './errors.ts';
import { K } from './keys.ts';
import { runScript, script } from '@svc/limits';
import { pageOfIndex } from './pages.ts';
import { ACCESS_REQUEST_TIMING, cleanReason, DECIDED_REQUESTS_KEPT, requesterField } from './access-request-rules.ts';
import type { AccessRequest, AccessRequestStatus, Requester } from './types.ts';
import type { WorkspaceStore } from './workspaces.ts';

/** The most trimmed requests one decision drops (older data is trimmed by `svc-admin migrate`). */
const TRIM_BATCH = 100;

/** One page of requests, newest asked first, and the cursor of the next (null: the last page). */
export interface RequestPage {
  requests: AccessRequest[];
  next: string | null;
}

/** What `create` did: the request, with whether the admins are due a mail about it now. */
export interface RequestOutcome extends AccessRequest {
  /** True for a new request, or a repeat more than an hour after the last mail about it. */
  notifyAdmins: boolean;
  /** True when an earlier pending request was updated rather than a new one made. */
  updated: boolean;
}

// KEYS: the project's latest-request hash. ARGV: requester, the id the caller read ('' none), a
// new id. Sets the new id only if the latest is still what the caller read; returns the latest.
// Two concurrent requests of one requester thus make one request, never two pending.
const CLAIM_LATEST = script(`
local cur = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if cur ~= ARGV[2] then return cur end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return ARGV[3]`);

// KEYS: the request's hash. ARGV: status, decided_at, granted_level, decided_by. The decision is
// the one move from pending (docs/security.md "Single-use values"): written only while the request
// is still pending, so of two admins deciding at once one decides; returns 'decided', or the status
// found ('missing': no such request).
const DECIDE = script(`
local status = redis.call('HGET', KEYS[1], 'status')
if not status then
  if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
  status = 'pending'
end
if status ~= 'pending' then return status end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'decided_at', ARGV[2], 'granted_level', ARGV[3], 'decided_by', ARGV[4])
return 'decided'`);

// KEYS: the request's hash. ARGV: the decided_at and decided_by a decision wrote. Puts the request
// back to pending only if that decision is still the one recorded (its grant could not be made).
const UNDECIDE = script(`
if redis.call('HGET', KEYS[1], 'decided_at') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'decided_by') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'status', 'pending', 'decided_at', '', 'granted_level', '', 'decided_by', '')
return 1`);

/** Where a request came from, for its audit entry: the client address, the request id and the agent (docs/audit.md "Who and through what"). */
export interface RequestOrigin {
  source: string;
  requestId: string;
  /** Through what it was filed: the agent, or what names it (an OAuth client id, an API key's id); unknown when not given. */
  agent?: AuditAgent | AuditAgentRef;
}

/** Access requests (docs/contract.md "Access requests"): created by svc_request_access, decided by admins. */
export class AccessRequestStore {
  private readonly ctx: StoreContext;
  private readonly workspaces: WorkspaceStore;
  private readonly keys: ApiKeyStore;
  private readonly bots: BotStore;
  private readonly audit: AuditLog;

  constructor(ctx: StoreContext, workspaces: WorkspaceStore, keys: ApiKeyStore, bots: BotStore, audit: AuditLog) {
    this.ctx = ctx;
    this.workspaces = workspaces;
    this.keys = keys;
    this.bots = bots;
    this.audit = audit;
  }

  /**
   * Creates a pending request, or updates the requester's pending one for the project (one per
   * requester and project). Refused with `cooldown` within a day of a denial of the same
   * requester on the same project (docs/management.md "Access request lifecycle"). A new request
   * is an `access_request.created` audit entry, written here so every path that files one (the
   * MCP tool, the consent page, the management API) records it; a repeat that updates the pending
   * request is none (docs/audit.md "Actions").
   */
  async create(
    input: { project: string; requester: Requester; requestedLevel: KeyLevel; reason: string },
    origin: RequestOrigin,
  ): Promise<RequestOutcome> {
    const project = await this.workspaces.requireProject(input.project);
    const latestKey = K.projectLatestRequests(input.project);
    const field = requesterField(input.requester);
    const latestId = (await this.ctx.redis.hget(latestKey, field)) ?? '';
    const latest = latestId ? await this.get(latestId) : null;
    const now = this.ctx.now();
    const denied = latest?.status === 'denied' && latest.decided_at ? Date.parse(latest.decided_at) : undefined;
    if (denied !== undefined && now - denied < ACCESS_REQUEST_TIMING.denialCooldownMs) {
      const again = new Date(denied + ACCESS_REQUEST_TIMING.denialCooldownMs).toISOString();
      throw new AccountError('cooldown', `Your last request for project ${input.project} was denied; you can ask again after ${again}.`);
    }
    const { redis } = this.ctx;
    const nowIso = new Date(now).toISOString();
    const fields = { requested_level: input.requestedLevel, reason: cleanReason(input.reason), requester: JSON.stringify(input.requester) };
    let id = latest?.status === 'pending' ? latest.id : '';
    let isNew = false;
    if (!id) {
      const fresh = newId('ar');
      // Written and counted among the project's pending requests (bounded: COLLECTION_LIMITS)
      // before it is claimed, so a filing that reads the latest pointer always finds its record
      // pending (never missing, which would read as expired and make a second request), and a
      // claimed request is never undone. Over the bound, nothing of it is left.
      const record = K.accessRequest(fresh);
      const pending = K.projectPendingRequests(input.project);
      await redis.hset(record, {
        id: fresh,
        project: input.project,
        ...fields,
        status: 'pending',
        created_at: nowIso,
        updated_at: nowIso,
        decided_at: '',
        notified_at: String(now),
      });
      await addToSet(this.ctx, 'pendingRequestsPerProject', pending, fresh).catch(async (err: unknown) => {
        await redis.del(record);
        throw err;
      });
      // Another filing of this requester may get in first: then its request is the one updated.
      id = String(await runScript(redis, CLAIM_LATEST, [latestKey], [field, latestId, fresh]));
      isNew = id === fresh;
      if (!isNew) {
        await redis.srem(pending, fresh);
        await redis.del(record);
      }
    }
    let notifyAdmins = isNew;
    if (!isNew) {
      const existing = await this.get(id);
      // The filing that got in first was decided meanwhile: never turned back to pending (only the
      // asked level, reason and times are written over, never the status).
      if (existing?.status !== 'pending') throw new AccountError('conflict', `access request ${id} was just decided; ask again`);
      const notifiedAt = Number((await redis.hget(K.accessRequest(id), 'notified_at')) ?? 0);
      notifyAdmins = now - notifiedAt >= ACCESS_REQUEST_TIMING.notifyCooldownMs;
      await redis.hset(K.accessRequest(id), { ...fields, updated_at: nowIso, ...(notifyAdmins ? { notified_at: String(now) } : {}) });
    }
    if (isNew) await redis.zadd(K.projectAccessRequests(input.project), now, id);
    // The previous latest was kept past its trimming for the denial cooldown alone: now replaced.
    if (isNew && latestId && (await redis.zscore(K.projectAccessRequests(input.project), latestId)) === null)
      await redis.del(K.accessRequest(latestId));
    if (isNew && input.requester.type === 'user') await redis.zadd(K.userAccessRequests(input.requester.id), now, id);
    const request = await this.get(id);
    if (!request) throw new AccountError('not_found', `no access request ${id}`);
    if (isNew) await this.recordCreated(project.workspace, request, origin);
    return { ...request, notifyAdmins, updated: !isNew };
  }

  /**
   * The audit entry of a new request (docs/audit.md "Actions"): the requester acts; the detail is
   * the project and the level asked, never the reason (free text the requester, possibly an agent,
   * wrote: it stays with the request, read by the admins, and leaves svc in no log or webhook).
   */
  private async recordCreated(workspace: string, request: AccessRequest, origin: RequestOrigin): Promise<void> {
    const actor = await this.actorOf(request.requester);
    const { requester } = request;
    const type = requester.type === 'user' ? 'user' : requester.type === 'bot' ? 'service_account' : 'key';
    const principal: AuditPrincipal = { type, id: requester.id, label: requester.type === 'bot' ? requester.label : actor };
    // The agent as the origin names it; else a project key is its own, and any other is unknown.
    const agent = origin.agent ?? (requester.type === 'key' ? { keyId: requester.id } : undefined);
    await this.audit.record({
      workspace,
      actor,
      principal,
      ...(agent ? { agent } : {}),
      action: 'access_request.created',
      target: `access_request:${request.id} (${request.requester.label})`,
      source: origin.source,
      requestId: origin.requestId,
      detail: { project: request.project, asked: request.requested_level },
    });
  }

  /** The requester as the audit log names actors: an email, `key:<prefix>`, `service_account:<id>`. */
  private async actorOf(requester: Requester): Promise<string> {
    if (requester.type === 'user') return requester.label;
    if (requester.type === 'bot') return `service_account:${requester.id}`;
    const key = await this.keys.getById(requester.id);
    return key ? `key:${key.prefix}` : `key:${requester.id}`;
  }

  async get(id: string): Promise<AccessRequest | null> {
    const h = await this.ctx.redis.hgetall(K.accessRequest(id));
    if (!h['id']) return null;
    return {
      id: h['id'],
      project: h['project'] ?? '',
      requested_level: (h['requested_level'] ?? 'VIEWER') as KeyLevel,
      reason: h['reason'] ?? '',
      status: (h['status'] ?? 'pending') as AccessRequestStatus,
      requester: JSON.parse(h['requester'] ?? '{}') as Requester,
      created_at: h['created_at'] ?? '',
      decided_at: h['decided_at'] || null,
      granted_level: (h['granted_level'] || null) as KeyLevel | null,
      decided_by: h['decided_by'] || null,
    };
  }

  /** A page of the requests a person made, newest first (docs/management.md "Following an access request"). */
  async pageForUser(userId: string, cursor: string | null, limit: number): Promise<RequestPage> {
    return this.pageOf(K.userAccessRequests(userId), cursor, limit);
  }

  /** A page of a project's requests, pending and decided, newest asked first (docs/management.md "Lists and pages"). */
  async page(project: string, cursor: string | null, limit: number): Promise<RequestPage> {
    return this.pageOf(K.projectAccessRequests(project), cursor, limit);
  }

  /** How many of the project's requests await a decision. */
  async pendingCount(project: string): Promise<number> {
    return this.ctx.redis.scard(K.projectPendingRequests(project));
  }

  /** Every request of a project, oldest first: at most its pending limit and DECIDED_REQUESTS_KEPT. */
  async list(project: string): Promise<AccessRequest[]> {
    const ids = await this.ctx.redis.zrange(K.projectAccessRequests(project), 0, -1);
    return this.records(ids);
  }

  /**
   * Drops the project's oldest decided requests past DECIDED_REQUESTS_KEPT, at most TRIM_BATCH of
   * them; returns how many it dropped. A dropped request leaves the project's and its requester's
   * lists and Redis, but for a denial that is still its requester's latest on the project: the
   * denial cooldown reads it, so it lives until the cooldown ends (or the next request replaces it).
   */
  async trimDecided(project: string): Promise<number> {
    const { redis } = this.ctx;
    const [all, pending] = await Promise.all([
      redis.zcard(K.projectAccessRequests(project)),
      redis.scard(K.projectPendingRequests(project)),
    ]);
    const excess = Math.min(all - pending - DECIDED_REQUESTS_KEPT, TRIM_BATCH);
    if (excess <= 0) return 0;
    // The oldest `excess` decided requests lie among the oldest `excess + pending` of the list.
    const oldest = await this.records(await redis.zrange(K.projectAccessRequests(project), 0, excess + pending - 1));
    const drop = oldest.filter((r) => r.status !== 'pending').slice(0, excess);
    const latest = await redis.hgetall(K.projectLatestRequests(project));
    for (const r of drop) {
      await redis.zrem(K.projectAccessRequests(project), r.id);
      if (r.requester.type === 'user') await redis.zrem(K.userAccessRequests(r.requester.id), r.id);
      const cooling =
        r.status === 'denied' && r.decided_at ? Date.parse(r.decided_at) + ACCESS_REQUEST_TIMING.denialCooldownMs - this.ctx.now() : 0;
      if (latest[requesterField(r.requester)] === r.id && cooling > 0) await redis.pexpire(K.accessRequest(r.id), Math.ceil(cooling));
      else await redis.del(K.accessRequest(r.id));
    }
    return drop.length;
  }

  private async pageOf(index: string, cursor: string | null, limit: number): Promise<RequestPage> {
    const { ids, next } = await pageOfIndex(this.ctx.redis, index, cursor, limit);
    return { requests: await this.records(ids), next };
  }

  private async records(ids: string[]): Promise<AccessRequest[]> {
    const all = await Promise.all(ids.map((id) => this.get(id)));
    return all.filter((r): r is AccessRequest => r !== null);
  }

  /**
   * Approves (granting `level`, by default the level asked for, to the requester) or denies a
   * pending request; `decidedBy` (who decided, as the audit log names them) is kept with it. The
   * decision is claimed first, in one write (DECIDE): of concurrent decisions one is made and every
   * other is refused with 'conflict' ("already approved/denied"). An approval whose grant fails
   * (a full project) puts the request back to pending.
   */
  async decide(id: string, approve: boolean, level?: KeyLevel, decidedBy = ''): Promise<AccessRequest> {
    const req = await this.get(id);
    if (!req) throw new AccountError('not_found', `no access request ${id}`);
    const granted = level ?? req.requested_level;
    const status: AccessRequestStatus = approve ? 'approved' : 'denied';
    const decidedAt = new Date(this.ctx.now()).toISOString();
    const record = K.accessRequest(id);
    const outcome = String(await runScript(this.ctx.redis, DECIDE, [record], [status, decidedAt, approve ? granted : '', decidedBy]));
    if (outcome === 'missing') throw new AccountError('not_found', `no access request ${id}`);
    if (outcome !== 'decided') throw new AccountError('conflict', `access request ${id} is already ${outcome}`);
    if (approve) {
      const { type, id: who } = req.requester;
      try {
        if (type === 'user') await this.workspaces.setRole(req.project, who, granted);
        else if (type === 'key') await this.keys.setLevel(who, granted);
        else await this.bots.grant(who, req.project, granted);
      } catch (err) {
        await runScript(this.ctx.redis, UNDECIDE, [record], [decidedAt, decidedBy]);
        throw err;
      }
    }
    await this.ctx.redis.srem(K.projectPendingRequests(req.project), id);
    await this.trimDecided(req.project);
    return { ...req, status, decided_at: decidedAt, granted_level: approve ? granted : null, decided_by: decidedBy || null };
  }
}
