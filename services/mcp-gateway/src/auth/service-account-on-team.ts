/**
 * A service account on its workspace's team endpoint (docs/contract.md "Credentials"): the
 * projects it was granted, its workspace paying. Its key and its client-credentials token both
 * arrive here.
 */
import type { Accounts } from '@svc/accounts';
import type { CredentialFacts } from './caller.ts';
import type { Resolution } from './resolution-cache.ts';
import { notFound, ok } from './resolution-outcomes.ts';

/** The caller a service account is on the team endpoint of `workspace`. */
export function serviceAccountOnTeam(accounts: Accounts) {
  return async function onTeam(botId: string, workspace: string, label: string, facts: CredentialFacts): Promise<Resolution> {
    const ws = await accounts.workspaces.get(workspace);
    if (!ws) return notFound(`team ${workspace}`);
    const granted = Object.keys((await accounts.bots.get(botId))?.grants ?? {});
    return ok({
      ...facts,
      type: 'bot',
      id: botId,
      label,
      role: 'NONE',
      serviceAccount: true,
      project: null,
      workspace: ws.slug,
      plan: ws.plan,
      agents: ws.agents,
      payer: { workspace: ws.slug, plan: ws.plan },
      grantedProjects: granted.sort(),
    });
  };
}
