/** The account model in Redis: users, workspaces, projects, roles, API keys, bots, access requests, the audit log, OAuth grants. */
import { AccessRequestStore } from './access-requests.ts';
import { ApiKeyStore } from './api-keys.ts';
import { ApprovalStore } from './approvals.ts';
import { AuditLog } from './audit.ts';
import { AuditAgents } from './audit-parties.ts';
import { BotStore } from './bots.ts';
import { FactorStore } from './factors.ts';
import { ServiceAccountClientStore } from './service-account-clients.ts';
import { TrustedIssuerStore } from './trusted-issuers.ts';
import { WorkloadIssuerStore } from './workload-issuers.ts';
import { ClientPolicyStore } from './client-policies.ts';
import { migrate, type MigrationReport } from './migrate.ts';
import { COLLECTION_LIMITS, type CollectionLimits } from './collection-limits.ts';
import { InvitationStore } from './invitations.ts';
import { OAuthGrantStore } from './oauth-grants.ts';
import type { StoreContext } from './context.ts';
import type { Redis } from './redis.ts';
import { replicatedWrites, type ReplicaConfirmRetry } from './replicated-writes.ts';
import { UserStore } from './users.ts';
import { WorkspaceStore } from './workspaces.ts';

export * from './types.ts';
export * from './errors.ts';
export * from './keys.ts';
export * from './oidc-records.ts';
export * from './oidc-record-writes.ts';
export * from './client-profiles.ts';
export * from './redis.ts';
export { NOT_REPLICATED, REPLICA_ACK_TIMEOUT_MS, type ReplicaConfirmRetry } from './replicated-writes.ts';
export { parseDuration } from './durations.ts';
export { slugStem } from './workspaces.ts';
export { MIN_PASSWORD, checkPassword } from './passwords.ts';
export {
  AUDIT_ACTIONS,
  AUDIT_ACTOR_MAX,
  AUDIT_CLOCK_SLACK_MS,
  AUDIT_EXPORT_BATCH,
  AUDIT_EXPORT_END,
  AUDIT_FILTER_SCAN,
  AUDIT_MAX_PAGE,
  AUDIT_PAGE,
  auditEntryOf,
  type AuditAction,
  type AuditEntry,
  type AuditFilter,
  type AuditInput,
} from './audit.ts';
export { AUDIT_AGENTS, keyAgent, type AuditAgent, type AuditAgentRef, type AuditDelegation, type AuditPrincipal } from './audit-parties.ts';
export { verifyAuditExport } from './audit-chain.ts';
export { CREATE_SVC_KEY_TTL_SECONDS, USER_KEY_TTL_SECONDS } from './api-key-records.ts';
export { isKeyStatus, keyStatus, type KeyStatus } from './key-status.ts';
export { allowedBy, compileAllowedIps } from './key-controls.ts';
export { hasHiddenCharacters, nameProblem, nameSkeleton, withoutHiddenCharacters } from './names.ts';
export { ACCESS_REQUEST_TIMING, cleanReason, DECIDED_REQUESTS_KEPT, MAX_REASON_LENGTH } from './access-request-rules.ts';
export type { RequestOutcome } from './access-requests.ts';
export {
  APPROVAL_TIMING,
  approvalCallerKey,
  approvalCallHash,
  approvalChallenge,
  type Approval,
  type ApprovalCaller,
  type PasskeyApproval,
} from './approvals.ts';
export { isCursor, LIST_MAX_PAGE, LIST_PAGE } from './pages.ts';
export { SERVICE_ACCOUNT_KEY_LIMITS } from './service-account-key-limits.ts';
export { TRUSTED_ISSUER_LIMITS } from './trusted-issuer-limits.ts';
export type { TrustedIssuer } from './trusted-issuers.ts';
export { WORKLOAD_ISSUER_LIMITS } from './workload-issuer-limits.ts';
export type { WorkloadIssuer, WorkloadIssuerInput } from './workload-issuers.ts';
export { claimMatches, GITHUB_ACTIONS_ISSUER, parseRuleSpecs, workloadClaim, type WorkloadIssuerKind } from './workload-rules.ts';
export type { ClientApproval } from './client-policies.ts';
export { decideClient, type ClientPolicy, type ClientRule, type ClientVerdict, type GovernedClient } from './client-policy-rules.ts';
export {
  serviceAccountClientMetadata,
  serviceAccountKeysProblem,
  type PublicJwk,
  type ServiceAccountKeys,
  type ServiceAccountClientMetadata,
} from './service-account-clients.ts';
export { PERSONAL_KEYS_KEPT, REVOKED_KEYS_KEPT, REVOKED_SERVICE_ACCOUNTS_KEPT } from './revoked-records.ts';
export { COLLECTION_LIMITS, type CollectionLimits } from './collection-limits.ts';
export { scanKeys } from './scan.ts';
export type { MigrationReport } from './migrate.ts';
export { INVITATION_RENEW_SECONDS, INVITATION_TTL_SECONDS, type Invitation, type InvitationRefusal } from './invitations.ts';
export { endPersonalCredentials } from './personal-credentials.ts';
export { RECOVERY_CODE_COUNT, TOTP_ENROL_TTL_SECONDS, type FactorSummary } from './factors.ts';
export { sealValue, unsealValue } from './factors-seal.ts';
export { MAX_PASSKEYS_PER_ACCOUNT, type Passkey } from './passkeys.ts';
export type {
  ApiKeyStore,
  AuditAgents,
  AuditLog,
  BotStore,
  ServiceAccountClientStore,
  WorkloadIssuerStore,
  UserStore,
  WorkspaceStore,
  AccessRequestStore,
  ApprovalStore,
  OAuthGrantStore,
  InvitationStore,
  FactorStore,
};

export interface Accounts {
  users: UserStore;
  workspaces: WorkspaceStore;
  keys: ApiKeyStore;
  bots: BotStore;
  /** Service accounts' OAuth clients: their public keys (docs/auth-service.md "Client credentials"). */
  serviceAccountClients: ServiceAccountClientStore;
  trustedIssuers: TrustedIssuerStore;
  /** Workload issuers and their rules (docs/workload-identity.md). */
  workloadIssuers: WorkloadIssuerStore;
  /** A workspace's client policy and the clients waiting for its approval (docs/management.md "Client governance"). */
  clientPolicies: ClientPolicyStore;
  accessRequests: AccessRequestStore;
  /** Calls waiting for, or run after, an admin's approval (docs/approvals.md). */
  approvals: ApprovalStore;
  audit: AuditLog;
  /** The agents audit entries name, looked up: an OAuth client's name and whether it is verified, an API key's prefix. */
  auditAgents: AuditAgents;
  /** OAuth grants people gave to apps (the auth-service writes them; both services read and revoke). */
  oauthGrants: OAuthGrantStore;
  /** Memberships offered by address, waiting for a confirmed account of that address to accept. */
  invitations: InvitationStore;
  /** Second factors and the workspace policy that requires them (docs/auth-service.md "Second factor"). */
  factors: FactorStore;
  /** Fills the indexes an earlier release did not keep (docs/operations.md "Upgrading"). */
  migrate(): Promise<MigrationReport>;
}

export interface AccountsOptions {
  pepper: string;
  /** KEY_PEPPER_PREVIOUS, while a pepper is being retired. */
  previousPepper?: string | null;
  /** bcrypt cost factor; 10 unless set (BCRYPT_COST). */
  bcryptCost?: number;
  now?: () => number;
  /** Smaller collection limits, for tests; COLLECTION_LIMITS otherwise. */
  limits?: Partial<CollectionLimits>;
  /** Replicas that must confirm each write before it is acknowledged (REDIS_WAIT_REPLICAS); 0 unless set. */
  waitReplicas?: number;
  /** How often an unconfirmed write's replicas are asked again before it fails; once unless set (svc-admin asks more). */
  confirmRetry?: ReplicaConfirmRetry;
}

/** The account stores over one Redis connection. */
export function createAccounts(redis: Redis, options: AccountsOptions): Accounts {
  const ctx: StoreContext = {
    redis: replicatedWrites(redis, options.waitReplicas ?? 0, options.confirmRetry),
    unconfirmed: redis,
    pepper: options.pepper,
    previousPepper: options.previousPepper ?? null,
    bcryptCost: options.bcryptCost ?? 10,
    now: options.now ?? Date.now,
    limits: { ...COLLECTION_LIMITS, ...options.limits },
  };
  const workspaces = new WorkspaceStore(ctx);
  const users = new UserStore(ctx, workspaces);
  const keys = new ApiKeyStore(ctx);
  const bots = new BotStore(ctx, keys, workspaces);
  const auditAgents = new AuditAgents(ctx.redis, keys, bots);
  const audit = new AuditLog(ctx, auditAgents);
  const accessRequests = new AccessRequestStore(ctx, workspaces, keys, bots, audit);
  return {
    users,
    workspaces,
    keys,
    bots,
    serviceAccountClients: new ServiceAccountClientStore(ctx),
    trustedIssuers: new TrustedIssuerStore(ctx),
    workloadIssuers: new WorkloadIssuerStore(ctx, bots),
    clientPolicies: new ClientPolicyStore(ctx),
    accessRequests,
    approvals: new ApprovalStore(ctx, keys, audit),
    audit,
    auditAgents,
    oauthGrants: new OAuthGrantStore(ctx),
    invitations: new InvitationStore(ctx, workspaces),
    factors: new FactorStore(ctx, workspaces),
    migrate: () => migrate(ctx, { keys, bots, accessRequests }),
  };
}
