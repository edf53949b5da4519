/**
 * The identity assertion JWT authorization grant, ID-JAG (docs/auth-service.md "Enterprise-managed
 * authorization"; draft-ietf-oauth-identity-assertion-authz-grant, presented as an RFC 7523 §2.1
 * `jwt-bearer` grant): checks an assertion from an identity provider the resource's workspace
 * trusts and names the person, the project and the level the token is to act at. Every refusal is
 * `invalid_grant` (RFC 7523 §3.1), except a resource that names no project (`invalid_target`,
 * RFC 8707 §2) and a level above the person's role (`invalid_scope`, RFC 6749 §5.2).
 */
import { createHash } from 'node:crypto';
import type { Accounts, Project, Redis, User } from '@svc/accounts';
import { DEFAULT_KEY_LEVEL, roleAtLeast, type KeyLevel, type Role } from '@svc/policy';
import { decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { errors } from 'oidc-provider';
import type { SsoStore } from '@svc/sso';
import { IssuerKeysUnavailable, type createIssuerKeys, type IssuerKeys } from './id-jag-keys.ts';
import { projectOfResource } from './resource.ts';
import { OK } from '../store/redis-keys.ts';

/** RFC 7523 §2.1. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** The ID-JAG's JOSE header `typ` (draft-ietf-oauth-identity-assertion-authz-grant). */
const ID_JAG_TYP = 'oauth-id-jag+jwt';
/** An assertion longer than 8 KiB is refused unread. */
export const ID_JAG_MAX_LENGTH = 8_192;
/** An ID-JAG lives at most 5 minutes (`exp` - `iat`, and `exp` - now), as a client assertion does. */
export const ID_JAG_MAX_LIFETIME_SECONDS = 300;
/** Clock skew allowed on `exp` and `iat`, as oidc-provider allows on client assertions. */
export const ID_JAG_CLOCK_TOLERANCE_SECONDS = 15;
/** A `jti` is a string of at most 256 characters. */
export const ID_JAG_JTI_MAX_LENGTH = 256;
/** The project token an ID-JAG buys lives 1 hour; no refresh token: the next one needs a new ID-JAG. */
export const ID_JAG_TOKEN_TTL_SECONDS = 3_600;
/** Asymmetric algorithms only: the issuer's keys are public (RFC 7518 §3.1). */
const ID_JAG_ALGS = ['ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'];

export interface IdJagDeps {
  accounts: Accounts;
  redis: Redis;
  /** Our issuer identifier: the assertion's `aud`. */
  issuer: string;
  baseUrl: string;
  /** The issuer's keys (id-jag-keys.ts; a JWKS URL through the guarded fetch of cimd-fetch.ts). */
  issuerKeys: ReturnType<typeof createIssuerKeys>;
  /** Single sign-on's subject links and proven domains (@svc/sso), which name the person. */
  sso: Pick<SsoStore, 'linkedUser' | 'ownerOf'>;
}

export interface IdJagRequest {
  assertion: unknown;
  clientId: string;
  resource: unknown;
  scope: unknown;
}

export interface IdJagOutcome {
  user: User;
  project: Project;
  resource: string;
  level: KeyLevel;
  /** The trusted issuer that signed the assertion. */
  issuer: string;
}

/** `invalid_grant` whose description names the check that failed (nothing in it is secret). */
class IdJagRefused extends errors.InvalidGrant {
  constructor(description: string) {
    super(description);
    this.error_description = description;
  }
}
const grantError = (description: string) => new IdJagRefused(description);

/** The highest `mcp:*` level a scope string names, or null (none, or only `mcp`). */
function scopeLevel(scope: unknown): KeyLevel | null {
  if (typeof scope !== 'string') return null;
  const levels = scope
    .split(' ')
    .flatMap((s) => (s === 'mcp:admin' ? ['ADMIN'] : s === 'mcp:write' ? ['EDITOR'] : s === 'mcp:read' ? ['VIEWER'] : []));
  return (levels as KeyLevel[]).reduce<KeyLevel | null>((top, l) => (!top || roleAtLeast(l, top) ? l : top), null);
}

const lower = (a: KeyLevel, b: KeyLevel): KeyLevel => (roleAtLeast(a, b) ? b : a);

/** Why jose refused the assertion, in words the client can act on. */
function joseDetail(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'the assertion has expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `the assertion's ${err.claim} claim is not acceptable (${err.reason})`;
  if (err instanceof joseErrors.JWKSNoMatchingKey || err instanceof joseErrors.JWSSignatureVerificationFailed)
    return 'the assertion is not signed by a key of its issuer';
  return 'the assertion is not a valid signed JWT';
}

/** The resource asked for: the request's `resource`, else the assertion's; both given, they must agree. */
function resourceOf(requested: unknown, claimed: unknown): string {
  if (requested !== undefined && typeof requested !== 'string') throw new errors.InvalidTarget('resource must be one URL');
  if (claimed !== undefined && requested !== undefined && claimed !== requested)
    throw grantError('the resource asked for is not the one the assertion names');
  const resource = requested ?? claimed;
  if (typeof resource !== 'string') throw new errors.InvalidTarget('resource is required: {base_url}/mcp/<project_slug>');
  return resource;
}

/**
 * Checks an ID-JAG (draft-ietf-oauth-identity-assertion-authz-grant; RFC 7523
 * §3) and returns who it is for, where, and at which level. The `jti` is claimed once in the
 * shared Redis only after every check of the assertion itself passed.
 */
export async function verifyIdJag(deps: IdJagDeps, req: IdJagRequest): Promise<IdJagOutcome> {
  const { assertion } = req;
  if (typeof assertion !== 'string' || assertion.length === 0) throw new errors.InvalidRequest('assertion is required');
  if (assertion.length > ID_JAG_MAX_LENGTH) throw grantError(`the assertion is longer than ${ID_JAG_MAX_LENGTH} characters`);
  let unverified: JWTPayload;
  try {
    unverified = decodeJwt(assertion);
  } catch {
    throw grantError('the assertion is not a JWT');
  }
  const resource = resourceOf(req.resource, unverified['resource']);
  const slug = projectOfResource(deps.baseUrl, resource);
  const project = slug ? await deps.accounts.workspaces.getProject(slug) : null;
  if (!project) throw new errors.InvalidTarget(`resource must be ${deps.baseUrl}/mcp/<project_slug> of an existing project`);

  // The workspace of the resource decides which issuers count: one read.
  const iss = typeof unverified.iss === 'string' ? unverified.iss : '';
  const trusted = iss ? await deps.accounts.trustedIssuers.find(project.workspace, iss) : null;
  if (!trusted) throw grantError(`the assertion's issuer is not trusted by the workspace of ${resource}`);

  let keys: IssuerKeys;
  try {
    keys = await deps.issuerKeys(trusted, project.workspace);
  } catch (err) {
    if (err instanceof IssuerKeysUnavailable) throw grantError(`the keys of ${trusted.issuer} could not be fetched`);
    throw err;
  }
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(assertion, keys, {
      issuer: trusted.issuer,
      audience: deps.issuer,
      typ: ID_JAG_TYP,
      algorithms: ID_JAG_ALGS,
      requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'client_id'],
      clockTolerance: ID_JAG_CLOCK_TOLERANCE_SECONDS,
    }));
  } catch (err) {
    throw grantError(joseDetail(err));
  }
  const { exp, iat, jti } = claims as { exp: number; iat: number; jti: unknown };
  const now = Math.floor(Date.now() / 1000);
  if (exp - iat > ID_JAG_MAX_LIFETIME_SECONDS || exp - now > ID_JAG_MAX_LIFETIME_SECONDS)
    throw grantError(`the assertion may live at most ${ID_JAG_MAX_LIFETIME_SECONDS} seconds`);
  if (iat > now + ID_JAG_CLOCK_TOLERANCE_SECONDS) throw grantError('the assertion was issued in the future');
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > ID_JAG_JTI_MAX_LENGTH)
    throw grantError(`the assertion's jti must be a string of 1 to ${ID_JAG_JTI_MAX_LENGTH} characters`);
  if (claims['client_id'] !== req.clientId) throw grantError('the assertion was issued to another client');

  // One use across every replica: remembered as long as the assertion could still be accepted.
  const ttl = Math.max(1, exp - now + ID_JAG_CLOCK_TOLERANCE_SECONDS);
  const key = OK.idJagJti(createHash('sha256').update(`${trusted.issuer}\n${jti}`).digest('base64url'));
  if ((await deps.redis.set(key, '1', 'EX', ttl, 'NX')) !== 'OK') throw grantError('the assertion was already used');

  const user = await personOf(deps, project.workspace, trusted.issuer, claims, resource);
  const role: Role = await deps.accounts.workspaces.roleOf(user.id, project);
  if (role === 'NONE') throw grantError(`the person has no role on project ${project.slug}`);
  return { user, project, resource, level: levelFor(role, req.scope, claims['scope']), issuer: trusted.issuer };
}

/**
 * The svc account the assertion names (docs/auth-service.md "Enterprise-managed authorization",
 * step 7), within the workspace of the project. First by its subject: `iss` and `sub` together name
 * one person (draft-ietf-oauth-identity-assertion-authz-grant §3.1; OpenID Connect Core 1.0 §2),
 * linked to an account when they signed in through the workspace's single sign-on at the same
 * issuer. Else by its `email` claim, only at a domain the workspace has proven, and only the
 * confirmed address of an existing account: a workspace vouches for no address at a domain it
 * has not proven, as its single sign-on does not ("Single sign-on").
 */
async function personOf(deps: IdJagDeps, workspace: string, issuer: string, claims: JWTPayload, resource: string): Promise<User> {
  const linked = typeof claims.sub === 'string' ? await deps.sso.linkedUser(workspace, issuer, claims.sub) : null;
  const user = linked ? await deps.accounts.users.get(linked) : null;
  if (user) return user;
  const email = typeof claims['email'] === 'string' ? claims['email'].trim().toLowerCase() : '';
  if (!email) throw grantError("the assertion's subject is not linked to an svc account, and it carries no email claim");
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (!domain || (await deps.sso.ownerOf(domain)) !== workspace)
    throw grantError(
      `the assertion's subject is not linked to an svc account, and ${domain} is not a domain the workspace of ${resource} has proven, so its email claim cannot name the person`,
    );
  const found = await deps.accounts.users.findByEmail(email);
  if (!found || found.emailVerifiedAt === null) throw grantError('the assertion names no svc account with a confirmed address');
  return found;
}

/**
 * The level of the token (docs/auth-service.md "Enterprise-managed authorization"): a level asked
 * for (`mcp:read|write|admin` in the request's scope) must be within the role (else
 * `invalid_scope`); none asked, the lower of the role and EDITOR, as the consent page preselects;
 * an `mcp:*` level in the assertion's own `scope` lowers it further.
 */
function levelFor(role: Exclude<Role, 'NONE'>, requestedScope: unknown, claimedScope: unknown): KeyLevel {
  const asked = scopeLevel(requestedScope);
  if (asked && !roleAtLeast(role, asked))
    throw new errors.InvalidScope(`the person's role on the project is ${role}`, String(requestedScope));
  const level = lower(role, asked ?? DEFAULT_KEY_LEVEL);
  const claimed = scopeLevel(claimedScope);
  return claimed ? lower(level, claimed) : level;
}
