/** What authentication resolves a credential to, for one endpoint. */
import type { BlockList } from 'node:net';
import type { KeyLevel, Plan, Role, Surface } from '@svc/policy';
import type { DelegationAncestor } from './oauth-types.ts';

/**
 * The endpoint a request addresses: a project, a team, or the caller's own account (the account
 * routes under /api/v1/, where a credential speaks for itself).
 */
export type Target = { kind: 'project'; slug: string } | { kind: 'team'; slug: string } | { kind: 'account'; slug: '' };

export interface ResolvedCaller {
  type: 'user' | 'key' | 'bot';
  id: string;
  label: string;
  role: Role;
  /** An OAuth token's granted scope (space-separated); absent for API keys. */
  scope?: string;
  /** An OAuth token's level approved on the consent page (docs/auth-service.md "Scopes"); absent for API keys. */
  approvedLevel?: KeyLevel;
  /** The person's own role when an OAuth token's scope lowered `role` (docs/contract.md "OAuth scopes and refresh"). */
  unscopedRole?: Role;
  serviceAccount: boolean;
  /** Project slug (project endpoint) or null (team endpoint). */
  project: string | null;
  /** The workspace owning the project (or the team); its plan decides the tool policy's plan gates. */
  workspace: string;
  plan: Plan;
  /**
   * Who pays for the request (docs/contract.md "Who pays for a request"): the project's workspace
   * when the caller has a role there; with role NONE, the caller's own workspace.
   */
  payer: { workspace: string; plan: Plan };
  agents: boolean;
  grantedProjects: string[];
  /** A legacy credential (rlm_pk_, rlm_team_): responses carry a Deprecation header. */
  legacy: boolean;
  /** Surface implied by the credential (OAuth client svc-companion); the header overrides. */
  defaultSurface: Surface;
  /** Per-credential session id (key id or OAuth grant id). */
  session: string;
  /** The OAuth client the token was issued to; absent for API keys. */
  clientId?: string;
  /**
   * A delegated OAuth token's chain of acting clients (RFC 8693 §4.1 `act`; docs/auth-service.md
   * "Delegation (token exchange)"), for audit: the current actor (`clientId`) first, the client
   * the person authorized last. Absent for every other credential.
   */
  chain?: readonly string[];
  /** A delegated token's ancestors: a revocation of any of them (token or grant) drops the cached caller. */
  ancestors?: readonly DelegationAncestor[];
  /** The API key's own requests-per-minute limit (docs/management.md "Per-key limits"); null: the plan's. */
  keyLimit: number | null;
  /** Stored key hash, for last-used bookkeeping; empty for OAuth tokens. */
  keyHash: string;
  /**
   * An OAuth token's DPoP binding (RFC 9449 §6: the thumbprint of its key); the request must carry
   * a proof signed by that key (auth/dpop-binding.ts). Absent for unbound tokens and API keys.
   */
  jkt?: string;
  /** Unix ms after which the cached resolution must not be used. */
  expiresAt: number | null;
  /**
   * The API key's IP allow-list, compiled once per resolution from the key record (docs/contract.md
   * "Credentials"); null: any address (and every OAuth token).
   */
  allowedIps: BlockList | null;
}

/** What the credential itself says of its caller, whichever endpoint it is used on. */
export type CredentialFacts = Pick<
  ResolvedCaller,
  'legacy' | 'defaultSurface' | 'session' | 'clientId' | 'keyHash' | 'keyLimit' | 'expiresAt' | 'allowedIps' | 'jkt'
>;
