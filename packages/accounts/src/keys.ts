/**
 * The Redis key layout of the account model. docs/redis-schema.md describes each key; this is the
 * one place that spells them. Rate-limit counters share the workspace's hash tag so one Lua script
 * may touch both on Redis Cluster.
 */
export const INVALIDATION_CHANNEL = 'svc:invalidate';

/**
 * The messages on INVALIDATION_CHANNEL: each names what changed, so a gateway drops only the
 * cached answers that depended on it (docs/redis-schema.md "Invalidation"). A message of any other
 * shape empties the whole cache.
 */
export const INVALIDATES = {
  key: (hash: string) => `key:${hash}`,
  bot: (id: string) => `bot:${id}`,
  workspace: (slug: string) => `workspace:${slug}`,
  /** A project was created: answers that found no such project are stale. */
  project: (slug: string) => `project:${slug}`,
  /** The workspace's list of projects changed: a team endpoint's answer lists them. */
  projectsOf: (workspace: string) => `projects:${workspace}`,
  user: (id: string) => `user:${id}`,
  /** The auth-service's: a grant (all its tokens) or one token record, by the digest of its id. */
  oauthGrant: (grantId: string) => `oauth:${grantId}`,
  oauthRecord: (model: string, digest: string) => `oauth:${model}:${digest}`,
  /** A project's upstream servers or their tools' rows changed: its tool set is stale. */
  upstreams: (project: string) => `upstreams:${project}`,
};

export const K = {
  user: (id: string) => `svc:user:${id}`,
  userByEmail: (email: string) => `svc:user-email:${email.toLowerCase()}`,
  userWorkspaces: (id: string) => `svc:user:${id}:workspaces`,
  userProjects: (id: string) => `svc:user:${id}:projects`,
  userKeys: (id: string) => `svc:user:${id}:keys`,
  /** The access requests a person made, by time (sorted set): they follow their status. */
  userAccessRequests: (id: string) => `svc:user:${id}:access-requests`,
  workspace: (slug: string) => `svc:ws:${slug}`,
  workspaceProjects: (slug: string) => `svc:ws:${slug}:projects`,
  /**
   * The making of a workspace's project of one name (`first` for its first project, else `named:`
   * and the SHA-256 of the name) claimed by one request: a token, SET NX PX PROJECT_CLAIM_MS.
   */
  workspaceProjectClaim: (slug: string, which: string) => `svc:ws:${slug}:project-claim:${which}`,
  workspaceBots: (slug: string) => `svc:ws:${slug}:bots`,
  /** The ids of a workspace's service accounts that are not revoked (set), held under their limit. */
  workspaceLiveBots: (slug: string) => `svc:ws:${slug}:live-bots`,
  /** A workspace's revoked service accounts by revocation time (sorted set), trimmed to REVOKED_SERVICE_ACCOUNTS_KEPT. */
  workspaceRevokedBots: (slug: string) => `svc:ws:${slug}:revoked-bots`,
  project: (slug: string) => `svc:project:${slug}`,
  projectRoles: (slug: string) => `svc:project:${slug}:roles`,
  projectKeys: (slug: string) => `svc:project:${slug}:keys`,
  /** A project's live keys by expiry time (+inf: none), to hold them under their limit (docs/management.md "Collection limits"). */
  projectLiveKeys: (slug: string) => `svc:project:${slug}:live-keys`,
  /** A project's revoked keys by revocation time (sorted set), trimmed to REVOKED_KEYS_KEPT (docs/management.md "Lists and pages"). */
  projectRevokedKeys: (slug: string) => `svc:project:${slug}:revoked-keys`,
  projectAccessRequests: (slug: string) => `svc:project:${slug}:access-requests`,
  /** The ids of a project's access requests awaiting a decision (set), held under their limit. */
  projectPendingRequests: (slug: string) => `svc:project:${slug}:pending-requests`,
  /**
   * Each requester's latest access request of a project (hash `<type>:<id>` -> request id): what
   * a new request is checked against, one read however long the project's history grows.
   */
  projectLatestRequests: (slug: string) => `svc:project:${slug}:latest-requests`,
  /** A project's pending invitations by expiry time (sorted set of ids), held under their limit (docs/management.md "Invitations"). */
  projectInvitations: (slug: string) => `svc:project:${slug}:invitations`,
  /** One invitation: hash {id, project, email, role, invitedBy, createdAt, expiresAt, tokenDigest}, 7 days. */
  invitation: (id: string) => `svc:invitation:${id}`,
  /**
   * When an address was last mailed an invitation to a project (`<epoch ms> <claim>`, keyed by the
   * invitation's id), for INVITATION_RENEW_SECONDS: kept when the invitation is cancelled, so a
   * cancel does not let the address be mailed again sooner.
   */
  invitationMailed: (id: string) => `svc:invitation-mailed:${id}`,
  /** SHA-256 of an invitation link's token -> the invitation's id, 7 days. */
  invitationToken: (digest: string) => `svc:invitation-token:${digest}`,
  /**
   * A person's second factors (docs/redis-schema.md "Second factors"), under one hash tag so one
   * script may move a pending TOTP secret to the confirmed one and make the recovery codes.
   */
  factorTotp: (userId: string) => `svc:factors:{${userId}}:totp`,
  factorTotpPending: (userId: string) => `svc:factors:{${userId}}:totp-pending`,
  factorRecovery: (userId: string) => `svc:factors:{${userId}}:recovery`,
  /** Passkeys: credential id -> JSON {publicKey, transports, createdAt}; and credential id -> signature counter. */
  factorPasskeys: (userId: string) => `svc:factors:{${userId}}:passkeys`,
  factorPasskeyCounters: (userId: string) => `svc:factors:{${userId}}:passkey-counters`,
  /** The workspace's "members must use a second factor" policy: "1" when on, absent when off. */
  workspaceFactorPolicy: (slug: string) => `svc:ws:${slug}:factor-policy`,
  apiKey: (hash: string) => `svc:key:${hash}`,
  apiKeyById: (id: string) => `svc:key-id:${id}`,
  /** Keys that expire, by expiry time (sorted set of key ids): the expiry sweep reads it (docs/management.md "Expiry"). */
  keyExpiries: () => 'svc:key-expiries',
  bot: (id: string) => `svc:bot:${id}`,
  botGrants: (id: string) => `svc:bot:${id}:grants`,
  /** A service account's OAuth client keys: JSON {jwks} or {jwksUri} (docs/auth-service.md "Client credentials"). */
  botClientKeys: (id: string) => `svc:bot:${id}:client-keys`,
  /** A workspace's trusted identity providers: hash of issuer id to JSON (docs/auth-service.md "Enterprise-managed authorization"). */
  workspaceTrustedIssuers: (slug: string) => `svc:ws:${slug}:trusted-issuers`,
  /** A workspace's workload issuers and their rules: hash of issuer id to JSON (docs/workload-identity.md). */
  workspaceWorkloadIssuers: (slug: string) => `svc:ws:${slug}:workload-issuers`,
  /** A workspace's client policy: JSON {mode, allow, deny, updatedAt} (docs/management.md "Client governance"). */
  workspaceClientPolicy: (slug: string) => `svc:ws:${slug}:client-policy`,
  /** Clients waiting for or decided by an owner: hash of client id to JSON (docs/management.md "Client governance"). */
  workspaceClientApprovals: (slug: string) => `svc:ws:${slug}:client-approvals`,
  /**
   * A project's upstream MCP servers and their tools' policy rows, one hash so a gateway reads a
   * project's whole tool set at once (docs/upstream-servers.md): `u:<name>` and `t:<name>:<tool>`.
   */
  projectUpstreams: (slug: string) => `svc:project:${slug}:upstreams`,
  /** Held by the gateway refreshing an upstream's tools, so replicas do not all refresh it. */
  upstreamRefreshLease: (slug: string, name: string) => `svc:project:${slug}:upstream-refresh:${name}`,
  /** The keys forwarded tokens are signed with (docs/upstream-servers.md "The forwarded token"). */
  upstreamSigningKeys: () => 'svc:upstream-signing-keys',
  accessRequest: (id: string) => `svc:access-request:${id}`,
  /** A call waiting for, or run after, an admin's approval; shares its project's hash tag with the index (docs/approvals.md). */
  approval: (project: string, id: string) => `svc:approval:{${project}}:${id}`,
  /** A project's approvals by creation time (zset), bounded by APPROVAL_TIMING.maxOpen. */
  projectApprovals: (project: string) => `svc:approvals:{${project}}`,
  /** A workspace's audit log: a stream, trimmed on append to the plan's retention and entry cap (docs/audit.md). */
  auditLog: (workspace: string) => `svc:audit:{${workspace}}`,
  /**
   * The ids of one action's entries in a workspace's audit log: a stream with the same ids (and one
   * empty field), written and trimmed by the script that appends the entry (docs/audit.md "Reading").
   */
  auditByAction: (workspace: string, action: string) => `svc:audit:{${workspace}}:action:${action}`,
  /** The head of a workspace's audit chain: `seq` and `hash` of its last entry, moved by the appending script (docs/audit.md "Chain"). */
  auditChain: (workspace: string) => `svc:audit:{${workspace}}:chain`,
  rateMinute: (workspace: string, minute: number) => `svc:rl:{${workspace}}:m:${minute}`,
  rateMonth: (workspace: string, month: string) => `svc:rl:{${workspace}}:q:${month}`,
  /** One key's requests in one minute, when the key has its own limit (docs/management.md "Per-key limits"). */
  rateKeyMinute: (workspace: string, keyId: string, minute: number) => `svc:rl:{${workspace}}:k:${keyId}:${minute}`,
  /**
   * One agent bucket's reservations in one minute (docs/operations.md "Limits for agents"): `bucket`
   * is `p:<person>`, `c:<person>:<client>` or `t:<caller>`.
   */
  rateAgentMinute: (workspace: string, bucket: string, minute: number) => `svc:rl:{${workspace}}:a:${bucket}:${minute}`,
  /**
   * A workspace's admitted requests of one month, per credential (`key:<id>`, `user:<id>`) and
   * per tool (`tool:<name>`): a hash counted by the same script as the limits.
   */
  usage: (workspace: string, month: string) => `svc:rl:{${workspace}}:u:${month}`,
  /**
   * The same counts for one UTC day (YYYYMMDD), written by the same script call as the month's and
   * kept USAGE_DAY_TTL_SECONDS: usage over time (docs/redis-schema.md).
   */
  usageDay: (workspace: string, day: string) => `svc:rl:{${workspace}}:d:${day}`,
  /**
   * A DPoP proof seen (RFC 9449 §11.1), by the SHA-256 of its key's thumbprint and its jti, under
   * the paying workspace's hash tag so the rate-limit script sets it in the same call
   * (docs/auth-service.md "DPoP").
   */
  dpopProof: (workspace: string, digest: string) => `svc:rl:{${workspace}}:dpop:${digest}`,
  /** Management API requests of a workspace in one minute (their own bucket, docs/management.md). */
  rateManagement: (workspace: string, minute: number) => `svc:rl:{${workspace}}:mgmt:${minute}`,
};

/** The windows the rate-limit keys are named by: the minute since the epoch, the UTC month (YYYYMM), the UTC day (YYYYMMDD). */
export const WINDOWS = {
  minute: (atMs: number): number => Math.floor(atMs / 60_000),
  month: (atMs: number): string => {
    const d = new Date(atMs);
    return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
  },
  day: (atMs: number): string => new Date(atMs).toISOString().slice(0, 10).replaceAll('-', ''),
};

/** Days of usage history shown (docs/dashboard.md "Usage"): the day hashes are read this far back. */
export const USAGE_HISTORY_DAYS = 30;
/** How long a day's usage hash lives: the history's days and two more, so the oldest shown day is whole. */
export const USAGE_DAY_TTL_SECONDS = (USAGE_HISTORY_DAYS + 2) * 86_400;

/** The usage hash's field names (K.usage). */
export const USAGE_FIELDS = {
  key: (id: string) => `key:${id}`,
  user: (id: string) => `user:${id}`,
  tool: (name: string) => `tool:${name}`,
};
