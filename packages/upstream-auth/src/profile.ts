/**
 * The svc token profile (docs/upstream-servers.md "The forwarded token"): an RFC 9068 JWT access
 * token, ES256, living at most MAX_TOKEN_LIFETIME_SECONDS, with the `svc` object claim that says in
 * which project, at which level and for which tool the call was made. This file reads the claims
 * of a token whose signature, issuer, audience and times were already checked.
 */
import type { JWTPayload } from 'jose';

/** RFC 9068 §2.1: the `typ` header of a JWT access token. */
export const SVC_TOKEN_TYPE = 'at+jwt';
/** The one signing algorithm svc uses and the verifier accepts. */
export const SVC_TOKEN_ALGORITHM = 'ES256';
/** Where the issuer publishes its keys, under its base URL. */
export const JWKS_PATH = '/.well-known/jwks.json';
/** The longest `exp - iat` the verifier accepts; svc issues 60 s. */
export const MAX_TOKEN_LIFETIME_SECONDS = 300;

/** The caller's levels in a project, lowest first. */
export const LEVELS = ['VIEWER', 'EDITOR', 'ADMIN'] as const;
/** A caller's level in a project. */
export type SvcLevel = (typeof LEVELS)[number];

/** The verified token as the MCP SDK's `AuthInfo.extra` carries it. */
export type SvcTokenExtra = {
  /** `sub`: `user:<id>`, `service_account:<id>` or `key:<id>`; `svc:gateway` when svc reads the upstream's tools itself. */
  subject: string;
  project: string;
  workspace: string;
  level: SvcLevel;
  /** The upstream's own name of the tool called; absent on a request that calls no tool. */
  tool: string | undefined;
  /** The name the project's admins registered the upstream under. */
  upstream: string;
  jti: string;
};

/** The MCP SDK's `AuthInfo` (the `OAuthTokenVerifier` result), as a verified svc token fills it. */
export type SvcAuthInfo = {
  token: string;
  clientId: string;
  scopes: string[];
  /** Seconds since the epoch (`exp`). */
  expiresAt: number;
  /** RFC 8707: the audience, the upstream's registered URL. */
  resource: URL;
  extra: SvcTokenExtra;
};

const SUBJECT = /^(user|service_account|key|svc):\S+$/;
const MAX_CLAIM_LENGTH = 256;

/** The claims beyond signature, issuer, audience and time, or null when one breaks the profile. */
export function readProfileClaims(payload: JWTPayload): Omit<SvcAuthInfo, 'token' | 'resource' | 'expiresAt'> | null {
  const { sub, jti, client_id: clientId, scope, svc } = payload;
  if (!shortString(sub) || !SUBJECT.test(sub) || !shortString(jti) || !shortString(clientId)) return null;
  if (typeof svc !== 'object' || svc === null || Array.isArray(svc)) return null;
  const { project, workspace, level, tool, upstream } = svc as Record<string, unknown>;
  if (!shortString(project) || !shortString(workspace) || !shortString(upstream) || !isLevel(level)) return null;
  if (tool !== undefined && !shortString(tool)) return null;
  if (typeof scope !== 'string') return null;
  const scopes = scope.split(' ').filter((s) => s !== '');
  // The profile: the caller's level appears as exactly one svc: scope, and it is the claim's level.
  const levelScopes = scopes.filter((s) => s.startsWith('svc:'));
  if (levelScopes.length !== 1 || levelScopes[0] !== `svc:${level.toLowerCase()}`) return null;
  return { clientId, scopes, extra: { subject: sub, project, workspace, level, tool, upstream, jti } };
}

/**
 * Whether a verified caller holds at least `level` in the project (ADMIN > EDITOR > VIEWER). Takes
 * any SDK `AuthInfo`; one that carries no svc level has none.
 */
export function hasLevel(authInfo: { extra?: Record<string, unknown> } | undefined, level: SvcLevel): boolean {
  const held = authInfo?.extra?.level;
  return isLevel(held) && LEVELS.indexOf(held) >= LEVELS.indexOf(level);
}

function isLevel(value: unknown): value is SvcLevel {
  return typeof value === 'string' && (LEVELS as readonly string[]).includes(value);
}

function shortString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_CLAIM_LENGTH;
}
