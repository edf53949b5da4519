/**
 * Client governance of a workspace (docs/management.md "Client governance"): the owner reads and
 * sets the client policy, and decides on the clients waiting for approval; each change is audited.
 */
import { AccountError, decideClient, type ClientApproval, type ClientPolicy, type ClientRule } from '@svc/accounts';
import type { ManagementContext } from './context.ts';
import { ManagementError, type Actor } from './types.ts';

/** The policy as a caller sets it: the whole of it. */
export interface ClientPolicyInput {
  mode: ClientPolicy['mode'];
  allow: ClientRule[];
  deny: ClientRule[];
}

/** A workspace's client policy and its clients waiting for approval. */
export interface ClientPolicyOperations {
  /** The workspace's client policy (open when never set). */
  clientPolicy(actor: Actor, workspace: string): Promise<ClientPolicy>;
  /** Replaces the policy; audited (`client_policy.changed`). */
  setClientPolicy(actor: Actor, workspace: string, input: ClientPolicyInput): Promise<ClientPolicy>;
  /** The clients that waited for approval, pending or decided, oldest first. */
  listClientApprovals(actor: Actor, workspace: string): Promise<ClientApproval[]>;
  /** Lets a waiting (or denied) client connect; audited (`client.approved`). */
  approveClient(actor: Actor, workspace: string, clientId: string): Promise<ClientApproval>;
  /** Refuses a waiting (or approved) client; audited (`client.denied`). */
  denyClient(actor: Actor, workspace: string, clientId: string): Promise<ClientApproval>;
}

const said = (rules: ClientRule[]) => rules.map((r) => `${r.kind}:${r.value}`).join(', ') || '(none)';

export function clientPolicyOperations(ctx: ManagementContext): ClientPolicyOperations {
  const { accounts, note, ownerOf } = ctx;

  /**
   * Ends the grants that reach the workspace's projects and whose client the policy now refuses
   * (docs/management.md "Client governance": a refused client loses its connections at once; one
   * that would only wait keeps those made before). Bounded by the workspace's projects and their
   * members (COLLECTION_LIMITS). The number ended.
   */
  async function endRefusedGrants(workspace: string, owner: string): Promise<number> {
    const policy = await accounts.clientPolicies.get(workspace);
    const projects = new Set(await accounts.workspaces.projectsOf(workspace));
    const people = new Set([owner]);
    for (const slug of projects) for (const m of await accounts.workspaces.members(slug)) people.add(m.userId);
    const approvals = new Map((await accounts.clientPolicies.list(workspace)).map((a) => [a.clientId, a.state]));
    let ended = 0;
    for (const person of people)
      for (const grant of await accounts.oauthGrants.listForUser(person)) {
        if (!grant.projects.some((p) => projects.has(p.slug))) continue;
        const client = { clientId: grant.clientId, name: grant.clientName === grant.clientId ? null : grant.clientName };
        if (decideClient(policy, client, approvals.get(grant.clientId) ?? null).outcome !== 'refused') continue;
        await accounts.oauthGrants.revoke(grant.id);
        ended++;
      }
    return ended;
  }

  async function decide(actor: Actor, workspace: string, clientId: string, state: 'approved' | 'denied'): Promise<ClientApproval> {
    const ws = await ownerOf(actor, workspace, state === 'approved' ? 'approve clients' : 'deny clients');
    const decided = await accounts.clientPolicies.decide(workspace, clientId, state, actor.label);
    if (!decided) throw new ManagementError(404, `No client ${clientId} waited for approval in workspace ${workspace}.`);
    const ended = state === 'denied' ? await endRefusedGrants(workspace, ws.owner) : 0;
    await note(actor, workspace, state === 'approved' ? 'client.approved' : 'client.denied', `client:${clientId}`, {
      ...(decided.name ? { name: decided.name } : {}),
      ...(state === 'denied' ? { oauth_grants_revoked: String(ended) } : {}),
    });
    return decided;
  }

  return {
    async clientPolicy(actor, workspace) {
      await ownerOf(actor, workspace, 'see the client policy');
      return accounts.clientPolicies.get(workspace);
    },

    async setClientPolicy(actor, workspace, input) {
      const ws = await ownerOf(actor, workspace, 'change the client policy');
      const saved = await accounts.clientPolicies.set(workspace, input).catch((err: unknown) => {
        if (err instanceof AccountError && err.code === 'invalid') {
          const field = err.message.startsWith('deny') ? 'deny' : 'allow';
          throw new ManagementError(400, `${err.message[0]!.toUpperCase()}${err.message.slice(1)}.`, field);
        }
        throw err;
      });
      await note(actor, workspace, 'client_policy.changed', `workspace:${workspace}`, {
        mode: saved.mode,
        allow: said(saved.allow),
        deny: said(saved.deny),
        oauth_grants_revoked: String(await endRefusedGrants(workspace, ws.owner)),
      });
      return saved;
    },

    async listClientApprovals(actor, workspace) {
      await ownerOf(actor, workspace, 'see the clients waiting for approval');
      return accounts.clientPolicies.list(workspace);
    },

    approveClient: (actor, workspace, clientId) => decide(actor, workspace, clientId, 'approved'),
    denyClient: (actor, workspace, clientId) => decide(actor, workspace, clientId, 'denied'),
  };
}
