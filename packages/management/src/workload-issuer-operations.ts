/**
 * A workspace's workload issuers and their rules (docs/workload-identity.md): the owner lists, adds
 * (or replaces) and removes them; each change is audited. Adding one lets its workloads act as the
 * service accounts its rules name, so it is declared as powerful as trusting an identity provider
 * (contract/workload-issuers.ts).
 */
import { AccountError, type WorkloadIssuer, type WorkloadIssuerInput } from '@svc/accounts';
import type { ManagementContext } from './context.ts';
import type { AnswerOf } from './contract/define.ts';
import type * as contract from './contract/workload-issuers.ts';
import { ManagementError, type Actor } from './types.ts';

/** A workspace's workload issuers (docs/workload-identity.md). */
export interface WorkloadIssuerOperations {
  /** The workspace's workload issuers with their rules (docs/workload-identity.md). */
  listWorkloadIssuers(actor: Actor, workspace: string): Promise<WorkloadIssuer[]>;
  /** Trusts a workload issuer with its keys and rules, or replaces them; bounded, audited. */
  addWorkloadIssuer(
    actor: Actor,
    workspace: string,
    input: Omit<WorkloadIssuerInput, 'keys'> & { jwks?: unknown; jwksUri?: string },
  ): Promise<WorkloadIssuer>;
  /** Stops trusting a workload issuer: its workloads get no new token (those issued live out their minutes). */
  removeWorkloadIssuer(actor: Actor, workspace: string, id: string): Promise<AnswerOf<typeof contract.removeWorkloadIssuer>>;
}

/** The field of the request a store refusal names. */
function fieldOf(message: string): string {
  if (message.startsWith('rules')) return 'rules';
  if (message.startsWith('audience')) return 'audience';
  if (message.startsWith('kind')) return 'kind';
  return message.includes('issuer') && !message.includes('jwks') ? 'issuer' : 'jwks';
}

/** The operations of this group, on the shared context (each is described on WorkloadIssuerOperations). */
export function workloadIssuerOperations(ctx: ManagementContext): WorkloadIssuerOperations {
  const { accounts, note, ownerOf, full } = ctx;
  return {
    async listWorkloadIssuers(actor, workspace) {
      await ownerOf(actor, workspace, 'see workload issuers');
      return accounts.workloadIssuers.list(workspace);
    },

    async addWorkloadIssuer(actor, workspace, input) {
      await ownerOf(actor, workspace, 'trust workload issuers');
      if (input.jwks !== undefined && input.jwksUri !== undefined)
        throw new ManagementError(400, "Give either jwks (the issuer's public JWK Set) or jwks_uri, not both.", 'jwks');
      const { jwks, jwksUri, ...rest } = input;
      const keys = jwksUri !== undefined ? { jwksUri } : jwks !== undefined ? { jwks: jwks as never } : undefined;
      const added = await accounts.workloadIssuers.add(workspace, { ...rest, ...(keys ? { keys } : {}) }).catch((err: unknown) => {
        if (err instanceof AccountError && err.code === 'invalid')
          throw new ManagementError(400, `${err.message[0]!.toUpperCase()}${err.message.slice(1)}.`, fieldOf(err.message));
        return full(err);
      });
      const accountsNamed = [...new Set(added.rules.map((r) => r.serviceAccount))].join(', ');
      await note(
        actor,
        workspace,
        'workload_issuer.added',
        `workload_issuer:${added.id} (${added.kind} ${added.issuer} → ${accountsNamed})`,
      );
      return added;
    },

    async removeWorkloadIssuer(actor, workspace, id) {
      await ownerOf(actor, workspace, 'stop trusting workload issuers');
      const removed = await accounts.workloadIssuers.remove(workspace, id);
      if (!removed) throw new ManagementError(404, 'This workspace trusts no such workload issuer.');
      await note(actor, workspace, 'workload_issuer.removed', `workload_issuer:${removed.id} (${removed.kind} ${removed.issuer})`);
      return { id, removed: true };
    },
  };
}
