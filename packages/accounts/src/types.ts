import type { CredentialKind } from '@svc/credentials';
import type { KeyLevel, Plan, Role } from '@svc/policy';

export interface User {
  id: string;
  email: string;
  /** Slug of the user's personal workspace. */
  workspace: string;
  createdAt: number;
  /** When the person followed the link mailed to their address (Unix ms); null until then. */
  emailVerifiedAt: number | null;
  /** Counts password changes; a reset link is good only in the epoch it was made in. */
  passwordEpoch: number;
}

export interface Workspace {
  slug: string;
  plan: Plan;
  agents: boolean;
  owner: string;
  createdAt: number;
}

export interface Project {
  slug: string;
  name: string;
  workspace: string;
  createdAt: number;
}

export type ApiKeyKind = Extract<CredentialKind, 'project_key' | 'bot_key' | 'user_key' | 'legacy_project_key' | 'legacy_team_key'>;

/** A stored API key (never its clear value: `hash` is the keyed hash it is stored under). */
export interface ApiKeyRecord {
  id: string;
  kind: ApiKeyKind;
  hash: string;
  /** Short display form, e.g. `svc-Ab3x…`. */
  prefix: string;
  name: string;
  /** Project keys: their level. Other kinds: empty. */
  level: KeyLevel | '';
  project: string;
  workspace: string;
  userId: string;
  botId: string;
  /** OAuth client that issued a personal key (svc-cli). */
  clientId: string;
  createdAt: number;
  /** Unix ms, or null for keys that do not expire. */
  expiresAt: number | null;
  revoked: boolean;
  /** Refused by every gateway until enabled again (docs/contract.md "Credentials"); revoking is for good, this is not. */
  disabled: boolean;
  /** Free text its owners keep about the key (at most MAX_KEY_NOTE characters); empty for none. */
  note: string;
  /** CIDR blocks the key may be used from (canonical form, at most MAX_ALLOWED_IPS); empty: anywhere. */
  allowedIps: string[];
  /** The id of the key a roll made in its place; empty unless rolled. */
  replacedBy: string;
  lastUsedAt: number | null;
  /** Requests per minute this key may make, below its workspace's plan limit; null: the plan's. */
  rateLimit: number | null;
  /**
   * Version (pepperVersion) of the newest pepper the key can be found under; empty for keys made
   * before peppers were versioned (docs/operations.md "Rotating the key pepper").
   */
  pepper: string;
}

export interface Bot {
  id: string;
  workspace: string;
  name: string;
  keyId: string;
  createdAt: number;
  grants: Record<string, KeyLevel>;
  /** Revoked for good: its keys are refused and no new key is issued to it (docs/management.md "Service accounts"). */
  revoked: boolean;
}

export type AccessRequestStatus = 'pending' | 'approved' | 'denied';

/** Who asked: a user (personal key or OAuth token), a project key, or a service account. */
export interface Requester {
  type: 'user' | 'key' | 'bot';
  id: string;
  label: string;
}

export interface AccessRequest {
  id: string;
  project: string;
  requested_level: KeyLevel;
  reason: string;
  status: AccessRequestStatus;
  requester: Requester;
  created_at: string;
  decided_at: string | null;
  /** The level granted by an approval (an admin may grant less than was asked); null otherwise. */
  granted_level: KeyLevel | null;
  /** Who decided (the admin's email, or the key's name), as the audit log names them; null while pending. */
  decided_by: string | null;
}

export interface ProjectAccess {
  project: Project;
  role: Role;
}
