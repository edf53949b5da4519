import type { KeyLevel } from '@svc/policy';
import type { ApiKeyStore } from './api-keys.ts';
import type { BotStore } from './bots.ts';
import { addToSet } from './collection-limits.ts';
import type { StoreContext } from './context.ts';
import { newId } from './context.ts';
import { AccountError } from './errors.ts';
import { K } from './keys.ts';
import type { AccessRequest, AccessRequestStatus, Requester } from './types.ts';
import type { WorkspaceStore } from './workspaces.ts';

export const MAX_REASON_LENGTH = 1000;

/** Access requests (docs/contract.md "Access requests"): created by svc_request_access, decided by admins. */
export class AccessRequestStore {
  private readonly ctx: StoreContext;
  private readonly workspaces: WorkspaceStore;
  private readonly keys: ApiKeyStore;
  private readonly bots: BotStore;

  constructor(ctx: StoreContext, workspaces: WorkspaceStore, keys: ApiKeyStore, bots: BotStore) {
    this.ctx = ctx;
    this.workspaces = workspaces;
    this.keys = keys;
    this.bots = bots;
  }

  /**
   * Creates a pending request. A requester with a pending request for the same project gets
   * that request back, updated, rather than a second one.
   */
  async create(input: { project: string; requester: Requester; requestedLevel: KeyLevel; reason: string }): Promise<AccessRequest> {
    await this.workspaces.requireProject(input.project);
    const existing = (await this.list(input.project)).find(
      (r) => r.status === 'pending' && r.requester.type === input.requester.type && r.requester.id === input.requester.id,
    );
    const id = existing?.id ?? newId('ar');
    const createdAt = existing?.created_at ?? new Date(this.ctx.now()).toISOString();
    if (!existing) await addToSet(this.ctx, 'pendingRequestsPerProject', K.projectPendingRequests(input.project), id);
    await this.ctx.redis.hset(K.accessRequest(id), {
      id,
      project: input.project,
      requested_level: input.requestedLevel,
      reason: input.reason.slice(0, MAX_REASON_LENGTH),
      status: 'pending',
      requester: JSON.stringify(input.requester),
      created_at: createdAt,
      decided_at: '',
    });
    if (!existing) await this.ctx.redis.zadd(K.projectAccessRequests(input.project), this.ctx.now(), id);
    if (!existing && input.requester.type === 'user')
      await this.ctx.redis.zadd(K.userAccessRequests(input.requester.id), this.ctx.now(), id);
    const req = await this.get(id);
    if (!req) throw new AccountError('not_found', `no access request ${id}`);
    return req;
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
    };
  }

  /** The requests a person made, newest first (docs/management.md "Access requests"). */
  async listForUser(userId: string): Promise<AccessRequest[]> {
    const ids = await this.ctx.redis.zrange(K.userAccessRequests(userId), 0, -1, 'REV');
    const all = await Promise.all(ids.map((id) => this.get(id)));
    return all.filter((r): r is AccessRequest => r !== null);
  }

  async list(project: string): Promise<AccessRequest[]> {
    const ids = await this.ctx.redis.zrange(K.projectAccessRequests(project), 0, -1);
    const all = await Promise.all(ids.map((id) => this.get(id)));
    return all.filter((r): r is AccessRequest => r !== null);
  }

  /**
   * Approves (granting `level`, by default the level asked for, to the requester) or denies a
   * pending request.
   */
  async decide(id: string, approve: boolean, level?: KeyLevel): Promise<AccessRequest> {
    const req = await this.get(id);
    if (!req) throw new AccountError('not_found', `no access request ${id}`);
    if (req.status !== 'pending') throw new AccountError('conflict', `access request ${id} is already ${req.status}`);
    const granted = level ?? req.requested_level;
    if (approve) {
      const { type, id: who } = req.requester;
      if (type === 'user') await this.workspaces.setRole(req.project, who, granted);
      else if (type === 'key') await this.keys.setLevel(who, granted);
      else await this.bots.grant(who, req.project, granted);
    }
    const status: AccessRequestStatus = approve ? 'approved' : 'denied';
    const decidedAt = new Date(this.ctx.now()).toISOString();
    await this.ctx.redis.hset(K.accessRequest(id), { status, decided_at: decidedAt, granted_level: approve ? granted : '' });
    await this.ctx.redis.srem(K.projectPendingRequests(req.project), id);
    return { ...req, status, decided_at: decidedAt, granted_level: approve ? granted : null };
  }
}
