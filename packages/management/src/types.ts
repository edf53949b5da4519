/**
 * The management layer's vocabulary (docs/management.md): who acts, what they see, and how a
 * refusal is said. The dashboard and the management API both speak it.
 */
import type { AuditAgent, AuditAgentRef, AuditDelegation, AuditPrincipal } from '@svc/accounts';
import type { KeyStatus } from '@svc/accounts/key-status.ts';
import { SvcError, type ErrorCode } from '@svc/errors';
import type { KeyLevel } from '@svc/policy';

/**
 * Who asks. A person (dashboard session, or their personal key on the API) acts within their
 * roles; a project key acts only within its own project, and only an ADMIN key may manage. `agent`
 * is what the request came through, for the audit log (audit-actor.ts): the door sets it (the
 * management API: the OAuth client or the API key, as a reference looked up only when an entry is
 * written); without it, a person acts through the dashboard, a project key through itself, the
 * operator through svc-admin.
 */
export type Actor = (
  | {
      kind: 'person';
      userId: string;
      label: string;
      source: string;
      requestId: string;
      /** Set for an OAuth token (bound to one project's resource): the person acts on that project only. */
      onlyProject?: string;
      /**
       * When this credential's session last used a second factor (ms since the epoch): a dashboard
       * session's; a token carries none (docs/security.md "Step-up").
       */
      factorAt?: number;
    }
  | { kind: 'project_key'; keyId: string; project: string; level: KeyLevel; label: string; source: string; requestId: string }
  /**
   * The operator at the server (svc-admin): acts as each project's ADMIN and each workspace's
   * owner, through this layer for every command it shares with the API (docs/contract.md
   * "Operator interface"); not a person, so no step-up or address applies.
   */
  | { kind: 'operator'; label: string; source: string; requestId: string }
) & {
  agent?: AuditAgent | AuditAgentRef;
  /** A delegated OAuth token's chain of acting clients, the current one first (RFC 8693 §4.1 `act`). */
  chain?: readonly string[];
};

/** The statuses a management refusal has (docs/management.md "Errors"). */
export type ManagementStatus = 400 | 403 | 404 | 409;

/**
 * Each status's code in the error catalogue (@svc/errors), and the remedy the management API gives
 * with it: one table, exhaustive by its type, so every door says a refusal the same way.
 */
const REFUSALS = {
  400: { code: 'invalid_params', remedy: 'Fix the named field and send again.' },
  403: { code: 'access_denied', remedy: "Ask the project's admins, or use a credential that may do this." },
  404: { code: 'not_found', remedy: 'Check the project, key or request id: it is not one this credential can see.' },
  409: { code: 'conflict', remedy: 'Reload and decide again.' },
} as const satisfies Record<ManagementStatus, { code: ErrorCode; remedy: string }>;

/**
 * A refusal of the management layer: an SvcError of the catalogue (the REST door sends it as it
 * is, the dashboard shows its message on a page of its status, svc-admin prints its code), with
 * the input field it is about, when it is one.
 */
export class ManagementError extends SvcError {
  /** The input field the refusal is about, when it is one. */
  readonly field: string | undefined;

  constructor(status: ManagementStatus, message: string, field?: string, code: ErrorCode = REFUSALS[status].code) {
    super(code, {
      message,
      ...(code === REFUSALS[status].code ? { remedy: REFUSALS[status].remedy } : {}),
      data: field ? { field } : {},
    });
    this.name = 'ManagementError';
    this.field = field;
  }
}

/**
 * The refusal of an operation whose declaration asks for a recent second factor (contract/policy.ts
 * `stepUp`), from an actor who has none: `page` is the dashboard page that does the same after a
 * step-up (REST names it in `step_up_required`; the dashboard sends the browser to the step-up page
 * and back to it).
 */
export class StepUpRequired extends ManagementError {
  readonly page: string;

  constructor(page: string, minutes: number) {
    super(
      403,
      `Step-up required: this needs a second factor used within ${minutes} minutes; do it on the dashboard (${page})`,
      undefined,
      'step_up_required',
    );
    this.name = 'StepUpRequired';
    this.page = page;
    Object.assign(this.data, { page });
  }
}

export interface ProjectRow {
  slug: string;
  name: string;
  workspace: string;
  role: string;
}

export interface KeyRow {
  id: string;
  name: string;
  level: string;
  prefix: string;
  createdAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
  status: KeyStatus;
  /** The key's own requests per minute (below the plan's), or null for the plan's limit alone. */
  rateLimit: number | null;
  note: string;
  /** CIDR blocks the key may be used from; empty: anywhere. */
  allowedIps: string[];
  /** The key a roll made in its place, when this one was rolled. */
  replacedBy: { id: string; name: string; prefix: string } | null;
}

/** Which keys a listing shows (docs/management.md "Key list"): a status or all (none: all but revoked), and a search. */
export interface KeyFilter {
  status?: string | null;
  q?: string | null;
}

export interface NewKey {
  id: string;
  key: string;
  name: string;
  level: string;
  expiresAt: number | null;
  /** The key's own requests per minute, or null for the plan's limit. */
  rateLimit: number | null;
  /** Set when the key replaced another (a roll): when the old one stops working. */
  replacedUntil?: number | null;
}

export interface RequestRow {
  id: string;
  requester: string;
  level: string;
  reason: string;
  createdAt: number;
  status: 'pending' | 'approved' | 'denied';
  /** The level an approval granted; null otherwise. */
  grantedLevel: string | null;
  /** Who decided, as the audit log names them; null while pending (or decided before it was kept). */
  decidedBy: string | null;
  decidedAt: number | null;
}

/** One of the signed-in person's own access requests. */
/** What asking for a level did: a pending request, or nothing when the level is already held. */
export interface RequestAccessOutcome {
  id: string | null;
  project: string;
  level: KeyLevel;
  status: 'pending' | 'unchanged';
  current_level: string;
  admins_emailed: boolean;
  updated: boolean;
}

export interface MyRequestRow {
  id: string;
  project: string;
  level: string;
  status: 'pending' | 'approved' | 'denied';
  grantedLevel: string | null;
  createdAt: number;
  decidedAt: number | null;
}

export interface MemberRow {
  userId: string;
  email: string;
  role: string;
  owner: boolean;
}

/** An invitation waiting for its address's owner (docs/management.md "Invitations"). */
export interface InvitationRow {
  id: string;
  email: string;
  role: string;
  invitedBy: string;
  createdAt: number;
  expiresAt: number;
}

export interface ServiceAccountRow {
  id: string;
  name: string;
  grants: Record<string, string>;
  keyPrefix: string | null;
  createdAt: number;
  revoked: boolean;
}

/** A service account's OAuth client (docs/auth-service.md "Client credentials"). */
export interface ServiceAccountClient {
  id: string;
  clientId: string;
  tokenEndpoint: string;
  /** The MCP endpoints it may ask a token for (`resource`): its granted projects and its team endpoint. */
  resources: string[];
  jwks: { keys: Record<string, unknown>[] } | null;
  jwksUri: string | null;
}

export interface Usage {
  minute: { used: number; limit: number };
  month: { used: number; quota: number | null };
  /**
   * This month's admitted requests per credential: API keys by name and prefix (`project` says
   * whose), people (OAuth tokens) by email with an empty prefix. Most used first.
   */
  perKey: { name: string; prefix: string; project: string; count: number }[];
  perTool: { tool: string; count: number }[];
  /** The last days' admitted requests (docs/dashboard.md "Usage"): one count per day of `days`, oldest first. */
  daily: {
    days: string[];
    requests: number[];
    perKey: { name: string; prefix: string; project: string; counts: number[] }[];
    perTool: { tool: string; counts: number[] }[];
  };
}

export interface AuditRow {
  id: string;
  at: number;
  actor: string;
  action: string;
  target: string;
  source: string;
  requestId: string;
  /** Who acted, through what, for whom (docs/audit.md "Who and through what"). */
  principal: AuditPrincipal;
  agent: AuditAgent;
  chain: AuditDelegation[];
}

/** An app (MCP client) the person authorized with OAuth: one grant, with the projects it reaches. */
export interface AppRow {
  id: string;
  client: string;
  clientId: string;
  projects: string[];
  /** The scope granted for each project, as the token carries it. */
  scopes: { project: string; scope: string }[];
  createdAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
}

/** The signed-in person's account as their page shows it. */
export interface AccountInfo {
  email: string;
  emailVerified: boolean;
  personalKeys: { id: string; client: string; prefix: string; createdAt: number; expiresAt: number | null; lastUsedAt: number | null }[];
}
