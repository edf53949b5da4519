/**
 * A workspace's client policy and the clients waiting for its owner's approval (docs/management.md
 * "Client governance"; the decision itself is client-policy-rules.ts).
 */
import type { StoreContext } from './context.ts';
import { AccountError } from './errors.ts';
import { K } from './keys.ts';
import {
  CLIENT_POLICY_LIMITS,
  clientRuleProblem,
  OPEN_POLICY,
  type ClientApprovalState,
  type ClientPolicy,
  type GovernedClient,
} from './client-policy-rules.ts';

/** A client an owner is asked about, or has decided on. */
export interface ClientApproval {
  clientId: string;
  name: string | null;
  state: ClientApprovalState;
  /** Who first tried to connect it (an email). */
  requestedBy: string;
  requestedAt: number;
  decidedBy: string | null;
  decidedAt: number | null;
}

/** What filing a wait did: the first filing, one already there, or none for a full workspace. */
export type FilingOutcome = 'filed' | 'exists' | 'full';

export class ClientPolicyStore {
  private readonly ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.ctx = ctx;
  }

  /** The workspace's policy; open when none was set. */
  async get(workspace: string): Promise<ClientPolicy> {
    const v = await this.ctx.redis.get(K.workspaceClientPolicy(workspace));
    return v ? (JSON.parse(v) as ClientPolicy) : OPEN_POLICY;
  }

  /** Replaces the policy; `invalid` naming the first rule refused. */
  async set(workspace: string, policy: Omit<ClientPolicy, 'updatedAt'>): Promise<ClientPolicy> {
    for (const list of ['allow', 'deny'] as const) {
      if (policy[list].length > CLIENT_POLICY_LIMITS.maxRules)
        throw new AccountError('invalid', `${list} holds at most ${CLIENT_POLICY_LIMITS.maxRules} rules`);
      for (const rule of policy[list]) {
        const problem = clientRuleProblem(rule);
        if (problem) throw new AccountError('invalid', `${list}: ${problem}`);
      }
    }
    const saved: ClientPolicy = { mode: policy.mode, allow: policy.allow, deny: policy.deny, updatedAt: this.ctx.now() };
    await this.ctx.redis.set(K.workspaceClientPolicy(workspace), JSON.stringify(saved));
    return saved;
  }

  /** The state of `clientId` in the workspace's approvals, or null when it never waited. */
  async approval(workspace: string, clientId: string): Promise<ClientApproval | null> {
    const v = await this.ctx.redis.hget(K.workspaceClientApprovals(workspace), clientId);
    return v ? (JSON.parse(v) as ClientApproval) : null;
  }

  /**
   * Files `client`'s wait, once: `HSETNX` is the one atomic write, so of many first attempts at
   * once exactly one files it (and is audited). Past maxApprovals the oldest decision is
   * forgotten; when every client kept is still pending, nothing is filed.
   */
  async fileWait(workspace: string, client: GovernedClient, requestedBy: string): Promise<FilingOutcome> {
    const key = K.workspaceClientApprovals(workspace);
    const record: ClientApproval = {
      clientId: client.clientId,
      name: client.name,
      state: 'pending',
      requestedBy,
      requestedAt: this.ctx.now(),
      decidedBy: null,
      decidedAt: null,
    };
    if ((await this.ctx.redis.hsetnx(key, client.clientId, JSON.stringify(record))) === 0) return 'exists';
    // Concurrent filings may each pass a check made before writing: count after writing instead.
    if ((await this.ctx.redis.hlen(key)) <= CLIENT_POLICY_LIMITS.maxApprovals) return 'filed';
    // Full: the oldest decision is forgotten to make room; with none decided, nothing is filed.
    const oldest = (await this.list(workspace)).find((a) => a.state !== 'pending');
    await this.ctx.redis.hdel(key, oldest ? oldest.clientId : client.clientId);
    return oldest ? 'filed' : 'full';
  }

  /** Every client waiting or decided, oldest first (at most maxApprovals). */
  async list(workspace: string): Promise<ClientApproval[]> {
    const all = await this.ctx.redis.hvals(K.workspaceClientApprovals(workspace));
    return all.map((v) => JSON.parse(v) as ClientApproval).sort((a, b) => a.requestedAt - b.requestedAt);
  }

  /** An owner's decision on a client that waited (or was decided before); null when it never waited. */
  async decide(workspace: string, clientId: string, state: 'approved' | 'denied', by: string): Promise<ClientApproval | null> {
    const current = await this.approval(workspace, clientId);
    if (!current) return null;
    const decided: ClientApproval = { ...current, state, decidedBy: by, decidedAt: this.ctx.now() };
    await this.ctx.redis.hset(K.workspaceClientApprovals(workspace), clientId, JSON.stringify(decided));
    return decided;
  }
}
