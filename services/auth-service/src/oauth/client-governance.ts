/**
 * Client governance at consent (docs/management.md "Client governance"): whether the workspace
 * owning the project a person is connecting may be reached by this client. The deny list wins;
 * an allowlist refuses others; in approval mode a client no owner decided on waits, and its first
 * wait is filed once (`HSETNX`), audited as `client.approval_requested` (so the owner hears of it
 * by the webhook event of that name). svc's own clients are svc, not governed.
 */
import { randomUUID } from 'node:crypto';
import { AUDIT_AGENTS, decideClient, type Accounts, type ClientVerdict, type GovernedClient, type User } from '@svc/accounts';
import { isVerifiedClient } from './client-names.ts';

/** What the consent page is told: the verdict, and for a wait whether this attempt filed it. */
export type Governed = ClientVerdict & { workspace: string };

/** The rule an approval page says: none for an open workspace or svc's own clients. */
export const admittedBy = (g: Governed) => (g.rule === 'open' || g.rule === 'svc' ? undefined : { workspace: g.workspace, rule: g.rule });

/** Governance over the account stores; `nameOf` finds a client's name as the provider knows it. */
export function clientGovernance(accounts: Accounts, nameOf: (clientId: string) => Promise<string | null>) {
  /** Files the first wait of `client` and audits it; later attempts find it filed. */
  async function fileWait(workspace: string, client: GovernedClient, person: User, project: string, source: string): Promise<void> {
    const filed = await accounts.clientPolicies.fileWait(workspace, client, person.email);
    if (filed !== 'filed') return;
    await accounts.audit.record({
      workspace,
      actor: person.email,
      action: 'client.approval_requested',
      target: `client:${client.clientId}`,
      source,
      requestId: randomUUID(),
      detail: { ...(client.name ? { name: client.name } : {}), project },
      principal: { type: 'user', id: person.id, label: person.email },
      agent: AUDIT_AGENTS.web,
    });
  }

  return {
    /** The verdict for the client on `project` of `workspace`, filing its wait when it is the first. */
    async check(a: { workspace: string; project: string; clientId: string; person: User; source: string }): Promise<Governed> {
      if (isVerifiedClient(a.clientId)) return { outcome: 'allowed', rule: 'svc', workspace: a.workspace };
      const client: GovernedClient = { clientId: a.clientId, name: await nameOf(a.clientId) };
      const policy = await accounts.clientPolicies.get(a.workspace);
      let verdict = decideClient(policy, client, null);
      if (verdict.outcome === 'pending') {
        const approval = await accounts.clientPolicies.approval(a.workspace, client.clientId);
        verdict = decideClient(policy, client, approval?.state ?? null);
        if (verdict.outcome === 'pending' && !approval) await fileWait(a.workspace, client, a.person, a.project, a.source);
      }
      return { ...verdict, workspace: a.workspace };
    },
  };
}
