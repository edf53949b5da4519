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
import type { Accounts, RequestOutcome, TrustedIssuer, User } from '@svc/accounts';
import { takeoverOperations, type TakeoverReport } from './takeover.ts';
import type { KeyLevel } from '@svc/policy';
import { accountOperations } from './account-operations.ts';
import type { AuditQueryInput } from './audit-query.ts';
import type { PageInput } from './list-page.ts';
import { managementContext, type ManagementDeps } from './context.ts';
import { factorOperations } from './factor-operations.ts';
import { keyOperations } from './key-operations.ts';
import { memberOperations } from './member-operations.ts';
import { accessRequestOperations } from './access-request-operations.ts';
import { requestAccessOperation } from './request-access.ts';
import { ssoOperations, type SsoOperations } from './sso-operations.ts';
import { serviceAccountClientOperations } from './service-account-client-operations.ts';
import { trustedIssuerOperations } from './trusted-issuer-operations.ts';
import { webhookOperations, type DeliveryAttempt, type WebhookEventType, type WebhookRow } from './webhook-operations.ts';
import type { EndpointChange } from '@svc/webhooks';
import type {
  AccountInfo,
  Actor,
  AuditRow,
  ServiceAccountRow,
  InvitationRow,
  KeyFilter,
  KeyRow,
  MemberRow,
  MyRequestRow,
  NewKey,
  ProjectRow,
  RequestAccessOutcome,
  RequestRow,
  ServiceAccountClient,
  Usage,
} from './types.ts';
import { workspaceOperations } from './workspace-operations.ts';
import { operationRules, withRules } from './rules.ts';

export interface Management extends SsoOperations {
  projectsOf(actor: Actor): Promise<ProjectRow[]>;
  /** Workspaces the actor may create projects in. */
  workspacesOf(actor: Actor): Promise<string[]>;
  createProject(actor: Actor, input: { name: string; workspace: string }): Promise<{ slug: string }>;
  /** The project's keys the filter selects (a status or search that is not valid is a 400 naming it). */
  keys(
    actor: Actor,
    project: string,
    filter?: KeyFilter,
  ): Promise<{ keys: KeyRow[]; creatableLevels: readonly KeyLevel[]; canRevoke: boolean }>;
  createKey(
    actor: Actor,
    project: string,
    input: {
      name: string;
      level: string;
      expires: string;
      rateLimit?: string | number | null;
      note?: string;
      allowedIps?: readonly string[];
    },
  ): Promise<NewKey>;
  /** Disables a key (every gateway refuses it within a second) or enables it again. */
  setKeyDisabled(actor: Actor, project: string, id: string, disabled: boolean): Promise<KeyRow>;
  setKeyNote(actor: Actor, project: string, id: string, note: string): Promise<KeyRow>;
  /** A key's IP allow-list (empty: anywhere); an entry that is no address or CIDR is a 400 naming it. */
  setKeyAllowedIps(actor: Actor, project: string, id: string, entries: readonly string[]): Promise<KeyRow>;
  /** A key's own requests-per-minute limit, below the plan's (null: the plan's alone). */
  setKeyLimit(actor: Actor, project: string, id: string, rateLimit: string | number | null | undefined): Promise<KeyRow>;
  revokeKey(actor: Actor, project: string, id: string): Promise<void>;
  rollKey(actor: Actor, project: string, id: string, overlap: string): Promise<NewKey>;
  /** A page of the project's access requests, newest asked first (docs/management.md "Lists and pages"). */
  requests(actor: Actor, project: string, page?: PageInput): Promise<{ requests: RequestRow[]; canDecide: boolean; next: string | null }>;
  /** How many of the project's access requests await a decision: 0 for an actor who may not decide them. */
  pendingRequests(actor: Actor, project: string): Promise<number>;
  /** The actor asks the project's admins for `level` (a person for themselves, a key for itself). */
  requestAccess(actor: Actor, project: string, input: { level: string; reason: string }): Promise<RequestAccessOutcome>;
  decideRequest(actor: Actor, project: string, id: string, decision: { approve: true; level: string } | { approve: false }): Promise<void>;
  members(actor: Actor, project: string): Promise<{ members: MemberRow[]; invitations: InvitationRow[]; canManage: boolean }>;
  /** A confirmed account becomes a member at once; any other address is mailed an invitation (`invited`). */
  addMember(actor: Actor, project: string, input: { email: string; role: string }): Promise<{ invited: boolean }>;
  cancelInvitation(actor: Actor, project: string, id: string): Promise<void>;
  setRole(actor: Actor, project: string, userId: string, role: string): Promise<void>;
  removeMember(actor: Actor, project: string, userId: string): Promise<void>;
  serviceAccounts(actor: Actor, workspace: string): Promise<{ bots: ServiceAccountRow[]; projects: string[]; canManage: boolean }>;
  createServiceAccount(actor: Actor, workspace: string, name: string): Promise<{ id: string; bot: string; key: string }>;
  grantServiceAccount(actor: Actor, workspace: string, id: string, project: string, level: string): Promise<void>;
  /** A new key; the old one works for `overlap` more (0m: ends now). A revoked service account is a 409. */
  rotateServiceAccount(
    actor: Actor,
    workspace: string,
    id: string,
    overlap: string,
  ): Promise<{ id: string; bot: string; key: string; oldKeyUntil: number | null }>;
  revokeServiceAccount(actor: Actor, workspace: string, id: string): Promise<void>;
  /** The meters, this month per key and tool, and the last `days` (1 to USAGE_HISTORY_DAYS, default all) per day. */
  usage(actor: Actor, workspace: string, query?: { days?: string | number | null }): Promise<Usage>;
  /** A service account's OAuth client: its id, token endpoint and public keys (docs/auth-service.md "Client credentials"). */
  serviceAccountClient(actor: Actor, workspace: string, id: string): Promise<ServiceAccountClient>;
  /** Replaces its public keys with a JWK Set or a JWKS URL (exactly one), checked and audited. */
  setServiceAccountClientKeys(
    actor: Actor,
    workspace: string,
    id: string,
    input: { jwks?: unknown; jwksUri?: string },
  ): Promise<ServiceAccountClient>;
  /** Removes its public keys: the client stops authenticating at once; says whether there were any. */
  removeServiceAccountClientKeys(actor: Actor, workspace: string, id: string): Promise<boolean>;
  /** The workspace's trusted identity providers (docs/auth-service.md "Enterprise-managed authorization"). */
  trustedIssuers(actor: Actor, workspace: string): Promise<TrustedIssuer[]>;
  /** Trusts an issuer with its keys (a JWK Set or a JWKS URL), or replaces them; bounded, audited. */
  addTrustedIssuer(actor: Actor, workspace: string, input: { issuer: string; jwks?: unknown; jwksUri?: string }): Promise<TrustedIssuer>;
  removeTrustedIssuer(actor: Actor, workspace: string, id: string): Promise<void>;
  /** The workspace's webhook endpoints with their delivery state (docs/webhooks.md). */
  webhooks(actor: Actor, workspace: string): Promise<WebhookRow[]>;
  /** A new endpoint and its secret, shown once. */
  createWebhook(
    actor: Actor,
    workspace: string,
    input: { url: string; events: WebhookEventType[]; description?: string },
  ): Promise<WebhookRow & { secret: string }>;
  updateWebhook(actor: Actor, workspace: string, id: string, change: EndpointChange): Promise<WebhookRow>;
  deleteWebhook(actor: Actor, workspace: string, id: string): Promise<void>;
  /** A new secret, shown once; the old one signs beside it until `previousUntil`. */
  rotateWebhookSecret(actor: Actor, workspace: string, id: string): Promise<{ secret: string; previousUntil: number }>;
  webhookDeliveries(actor: Actor, workspace: string, id: string): Promise<DeliveryAttempt[]>;
  /** Queues a `webhook.test` event, sent by the worker ahead of the next audit entry. */
  testWebhook(actor: Actor, workspace: string, id: string): Promise<void>;
  /** A page of the audit log, filtered by action, person and time range; a parameter that is not valid is a 400 naming it. */
  audit(
    actor: Actor,
    workspace: string,
    page: AuditQueryInput,
  ): Promise<{ entries: AuditRow[]; next: string | null; actions: readonly string[] }>;
  /** Every kept entry the filter lets through, as chunks of JSON lines, read as they are taken (streamExport writes them). */
  auditExport(actor: Actor, workspace: string, filter?: AuditQueryInput): Promise<AsyncIterable<string>>;
  account(actor: Actor): Promise<AccountInfo>;
  revokePersonalKey(actor: Actor, id: string): Promise<void>;
  /** The access requests the signed-in person made, with their status (docs/management.md). */
  myRequests(actor: Actor, page?: PageInput): Promise<{ requests: MyRequestRow[]; next: string | null }>;
  /** Ends an OAuth grant the person gave an app: its tokens stop at every gateway within a second. */
  revokeApp(actor: Actor, id: string): Promise<void>;
  /**
   * A key's value reported as leaked: the key is revoked and the report recorded. Holding the key
   * is proof enough; the answer is the same whether or not it existed.
   */
  reportLeak(key: string, from: { source: string; requestId: string }): Promise<void>;
  /** The signed-in person's new password, after their current one (docs/management.md). */
  changePassword(actor: Actor, current: string, next: string): Promise<void>;
  /** Whether the workspace requires a second factor of its members (docs/management.md "Second factor"). */
  factorPolicy(actor: Actor, workspace: string): Promise<{ required: boolean }>;
  setFactorPolicy(actor: Actor, workspace: string, required: boolean): Promise<{ required: boolean }>;
  /** The owner's reset of a member's second factors, audited (`factor.reset`). */
  resetFactors(actor: Actor, workspace: string, userId: string): Promise<{ user: string; reset: true }>;
  /** One key-expiry sweep: warnings mailed, `key.expired` recorded (docs/management.md "Expiry"). */
  sweepKeyExpiries(): Promise<{ warned: number; expired: number }>;
  /** Tells the project's admins of a new access request (by email; never fails the request). */
  /** Mails the admins when the request is due a mail (RequestOutcome.notifyAdmins); says whether it did. */
  accessRequested(request: RequestOutcome): Promise<{ mailed: boolean }>;
  /**
   * After an SSO sign-in proved the address of an account that never had it proven: removes every
   * workspace-level setting and credential the account made (takeover.ts, docs/security.md
   * "Unproven addresses").
   */
  clearTakenOver(user: User): Promise<TakeoverReport>;
}

/** The management layer: its operations, grouped by resource in the files named above. */
export function createManagement(accounts: Accounts, deps: ManagementDeps): Management {
  const ctx = managementContext(accounts, deps);
  const layer: Management = {
    ...workspaceOperations(ctx),
    ...keyOperations(ctx),
    ...memberOperations(ctx),
    ...accessRequestOperations(ctx),
    ...requestAccessOperation(ctx),
    ...accountOperations(ctx),
    ...factorOperations(ctx),
    ...ssoOperations(ctx),
    ...serviceAccountClientOperations(ctx),
    ...trustedIssuerOperations(ctx),
    ...webhookOperations(ctx, deps.webhooks),
    ...takeoverOperations(ctx),
  };
  return withRules(layer, operationRules(accounts, ctx.now));
}
