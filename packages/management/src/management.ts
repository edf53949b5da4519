/**
 * The management layer on the account stores (docs/management.md "Who may do what"): each
 * operation finds the actor's role where it acts, refuses what the role does not allow, and
 * records what it did in the workspace's audit log.
 * - A project's keys: every member sees them; an EDITOR creates VIEWER and EDITOR keys and revokes
 *   or rolls keys up to EDITOR; an ADMIN does all of it; a VIEWER only looks.
 * - Access requests and members: an ADMIN of the project decides and manages; members see the
 *   member list.
 * - Service accounts, usage and the audit log: the workspace's owner.
 * - A project key acts only within its own project, with its level as its role, and only an ADMIN
 *   key manages; it cannot act on a workspace.
 * - An OAuth token granted mcp:admin acts as its person on its own project only (`onlyProject`).
 * - A project the actor has no role on is answered as missing (404), never as forbidden, so no
 *   one learns who holds which slug.
 * - Proven addresses (docs/management.md "Invitations"): a person whose address is not confirmed
 *   decides no access request; only a confirmed account becomes a member, by a decision or when
 *   added; adding any other address mails it an invitation that its owner accepts.
 */
import type { Accounts } from '@svc/accounts';
import { accessRequestOperations } from './access-request-operations.ts';
import { accountOperations } from './account-operations.ts';
import { approvalOperations } from './approval-operations.ts';
import { managementContext, type ManagementDeps } from './context.ts';
import { factorOperations } from './factor-operations.ts';
import { keyOperations } from './key-operations.ts';
import type { Management } from './management-type.ts';
import { memberOperations } from './member-operations.ts';
import { requestAccessOperation } from './request-access.ts';
import { operationRules, withRules } from './rules.ts';
import { accessEndOperations } from './access-end.ts';
import { scimOperations } from './scim-operations.ts';
import { serviceAccountClientOperations } from './service-account-client-operations.ts';
import { ssoOperations } from './sso-operations.ts';
import { takeoverOperations } from './takeover.ts';
import { trustedIssuerOperations } from './trusted-issuer-operations.ts';
import { workloadIssuerOperations } from './workload-issuer-operations.ts';
import { clientPolicyOperations } from './client-policy-operations.ts';
import { upstreamOperations } from './upstream-operations.ts';
import { builtinToolOperations } from './builtin-tool-operations.ts';
import { webhookOperations } from './webhook-operations.ts';
import { workspaceOperations } from './workspace-operations.ts';

/**
 * The layer's calls as the groups implement them, before the rules are put in front of them
 * (createManagement): the doors use createManagement; a test of the convention the rules rely on
 * calls this.
 */
export function managementCalls(accounts: Accounts, deps: ManagementDeps): Management {
  const ctx = managementContext(accounts, deps);
  return {
    ...workspaceOperations(ctx),
    ...keyOperations(ctx),
    ...memberOperations(ctx),
    ...accessRequestOperations(ctx),
    ...approvalOperations(ctx),
    ...requestAccessOperation(ctx),
    ...accountOperations(ctx),
    ...factorOperations(ctx),
    ...ssoOperations(ctx),
    ...serviceAccountClientOperations(ctx),
    ...trustedIssuerOperations(ctx),
    ...workloadIssuerOperations(ctx),
    ...clientPolicyOperations(ctx),
    ...webhookOperations(ctx, deps.webhooks),
    ...upstreamOperations(ctx, deps.upstreams),
    ...builtinToolOperations(ctx, deps.upstreams),
    ...takeoverOperations(ctx),
    ...scimOperations(ctx),
    ...accessEndOperations(ctx),
  };
}

/** The management layer: its operations, grouped by resource in the files named above, each checked by its declared rules. */
export function createManagement(accounts: Accounts, deps: ManagementDeps): Management {
  return withRules(managementCalls(accounts, deps), operationRules(accounts, deps.now ?? Date.now));
}
