/**
 * Workload identity federation (docs/workload-identity.md; MCP SEP-1933): a workload's own signed
 * token (a GitHub Actions OIDC token, a Kubernetes projected service-account token, a SPIFFE
 * JWT-SVID), presented as an RFC 7523 §2.1 `jwt-bearer` assertion, is checked against a workload
 * issuer of the resource's workspace and mapped by the issuer's rules to one service account of
 * that workspace. Every refusal is `invalid_grant` (RFC 7523 §3.1), except a resource that names no
 * project (`invalid_target`, RFC 8707 §2).
 */
import { createHash } from 'node:crypto';
import { claimMatches, workloadClaim, type Accounts, type Bot, type Project, type Redis, type WorkloadIssuer } from '@svc/accounts';
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { errors } from 'oidc-provider';
import { IssuerKeysUnavailable, type createIssuerKeys, type IssuerKeys } from './id-jag-keys.ts';
import { projectOfResource } from './resource.ts';
import { OK } from '../store/redis-keys.ts';

/** The first-party public client a workload names at the token endpoint (no secret: the assertion is the proof). */
export const WORKLOAD_CLIENT_ID = 'svc-workload';
/** A workload token longer than 8 KiB is refused unread. */
export const WORKLOAD_ASSERTION_MAX_LENGTH = 8_192;
/**
 * A workload token lives at most 1 hour (`exp` - `iat`, and `exp` - now): GitHub's live minutes,
 * a Kubernetes projected token's default `expirationSeconds` is 3600.
 */
export const WORKLOAD_ASSERTION_MAX_LIFETIME_SECONDS = 3_600;
/** Clock skew allowed on `exp`, `nbf` and `iat`. */
const WORKLOAD_CLOCK_TOLERANCE_SECONDS = 15;
/** A `jti` is a string of at most 256 characters. */
const WORKLOAD_JTI_MAX_LENGTH = 256;
/** The service-account token a workload token buys lives 15 minutes; no refresh token. */
export const WORKLOAD_TOKEN_TTL_SECONDS = 900;
/** Asymmetric algorithms only: an issuer's keys are public (RFC 7518 §3.1); never `none` nor HS*. */
const WORKLOAD_ALGS = ['ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'];
/** The ID-JAG's `typ`: such an assertion is never a workload's. */
const ID_JAG_TYP = 'oauth-id-jag+jwt';

export interface WorkloadDeps {
  accounts: Accounts;
  redis: Redis;
  /** Our issuer identifier: the default `aud` of a workload token. */
  issuer: string;
  baseUrl: string;
  /** The issuer's keys (id-jag-keys.ts; a JWKS URL through the guarded fetch, with the workspace's share). */
  issuerKeys: ReturnType<typeof createIssuerKeys>;
}

export interface WorkloadOutcome {
  serviceAccount: Bot;
  project: Project;
  resource: string;
  trusted: WorkloadIssuer;
  /** The workload's `sub`: who the audit names. */
  subject: string;
  /** The claims the matching rule named, with the token's values. */
  matched: Record<string, string>;
}

/** `invalid_grant` whose description names the check that failed (nothing in it is secret). */
class WorkloadRefused extends errors.InvalidGrant {
  constructor(description: string) {
    super(description);
    this.error_description = description;
  }
}
const refused = (description: string) => new WorkloadRefused(description);

/** The names a token could be trusted under: its SPIFFE trust domain (a JWT-SVID's `sub`), then its `iss`. */
function lookupNames(claims: JWTPayload): string[] {
  const names: string[] = [];
  const sub = claims.sub;
  if (typeof sub === 'string' && sub.startsWith('spiffe://')) names.push(`spiffe://${sub.slice(9).split('/')[0]}`);
  if (typeof claims.iss === 'string' && claims.iss.length > 0) names.push(claims.iss);
  return names;
}

/** Why jose refused the token, in words the workload's owner can act on. */
function joseDetail(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'the assertion has expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `the assertion's ${err.claim} claim is not acceptable (${err.reason})`;
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return `the assertion's alg is not allowed: ${WORKLOAD_ALGS.join(', ')}`;
  if (err instanceof joseErrors.JWKSNoMatchingKey || err instanceof joseErrors.JWSSignatureVerificationFailed)
    return 'the assertion is not signed by a key of its issuer';
  return 'the assertion is not a valid signed JWT';
}

interface Unverified {
  claims: JWTPayload;
  typ: unknown;
}

function unverified(assertion: unknown): Unverified {
  if (typeof assertion !== 'string' || assertion.length === 0) throw new errors.InvalidRequest('assertion is required');
  if (assertion.length > WORKLOAD_ASSERTION_MAX_LENGTH)
    throw refused(`the assertion is longer than ${WORKLOAD_ASSERTION_MAX_LENGTH} characters`);
  try {
    return { claims: decodeJwt(assertion), typ: decodeProtectedHeader(assertion).typ };
  } catch {
    throw refused('the assertion is not a JWT');
  }
}

/** The project of the `resource` parameter (required: RFC 8707 §2). */
async function projectOf(deps: WorkloadDeps, resource: unknown): Promise<Project> {
  if (typeof resource !== 'string') throw new errors.InvalidTarget(`resource is required: ${deps.baseUrl}/mcp/<project_slug>`);
  const slug = projectOfResource(deps.baseUrl, resource);
  const project = slug ? await deps.accounts.workspaces.getProject(slug) : null;
  if (!project) throw new errors.InvalidTarget(`resource must be ${deps.baseUrl}/mcp/<project_slug> of an existing project`);
  return project;
}

/** The workload issuer of `workspace` the token names, or null. */
async function issuerOf(deps: WorkloadDeps, workspace: string, claims: JWTPayload): Promise<WorkloadIssuer | null> {
  for (const name of lookupNames(claims)) {
    const found = await deps.accounts.workloadIssuers.find(workspace, name);
    if (found) return found;
  }
  return null;
}

/**
 * Whether the token endpoint's `jwt-bearer` assertion is a workload's: always for the workload
 * client; never for an ID-JAG (its `typ`); otherwise when its issuer is a workload issuer of the
 * resource's workspace. One read of the issuer list at most, before any signature check.
 */
export async function isWorkloadAssertion(deps: WorkloadDeps, clientId: string, assertion: unknown, resource: unknown): Promise<boolean> {
  if (clientId === WORKLOAD_CLIENT_ID) return true;
  let token: Unverified;
  try {
    token = unverified(assertion);
  } catch {
    return false;
  }
  if (token.typ === ID_JAG_TYP || typeof resource !== 'string') return false;
  const slug = projectOfResource(deps.baseUrl, resource);
  const project = slug ? await deps.accounts.workspaces.getProject(slug) : null;
  return project !== null && (await issuerOf(deps, project.workspace, token.claims)) !== null;
}

/** The signature and the registered claims (RFC 7519 §4.1), by the issuer's keys; bounded lifetime. */
async function verified(deps: WorkloadDeps, assertion: string, trusted: WorkloadIssuer, workspace: string): Promise<JWTPayload> {
  let keys: IssuerKeys;
  try {
    keys = await deps.issuerKeys(trusted, workspace);
  } catch (err) {
    if (err instanceof IssuerKeysUnavailable) throw refused(`the keys of ${trusted.issuer} could not be fetched`);
    throw err;
  }
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(assertion, keys, {
      // A JWT-SVID's issuer is its trust domain, proven by the bundle's keys and the `sub` (SPIFFE JWT-SVID §3).
      ...(trusted.kind === 'spiffe' ? {} : { issuer: trusted.issuer }),
      audience: trusted.audience ?? deps.issuer,
      algorithms: WORKLOAD_ALGS,
      requiredClaims: trusted.kind === 'spiffe' ? ['sub', 'aud', 'exp'] : ['iss', 'sub', 'aud', 'exp', 'iat'],
      clockTolerance: WORKLOAD_CLOCK_TOLERANCE_SECONDS,
    }));
  } catch (err) {
    throw refused(joseDetail(err));
  }
  const now = Math.floor(Date.now() / 1000);
  const exp = claims.exp!;
  const iat = typeof claims.iat === 'number' ? claims.iat : now;
  if (exp - iat > WORKLOAD_ASSERTION_MAX_LIFETIME_SECONDS || exp - now > WORKLOAD_ASSERTION_MAX_LIFETIME_SECONDS)
    throw refused(`the assertion may live at most ${WORKLOAD_ASSERTION_MAX_LIFETIME_SECONDS} seconds`);
  if (iat > now + WORKLOAD_CLOCK_TOLERANCE_SECONDS) throw refused('the assertion was issued in the future');
  if (trusted.kind === 'spiffe' && !String(claims.sub).startsWith(`${trusted.issuer}/`))
    throw refused(`the assertion's SPIFFE ID is not in the trust domain ${trusted.issuer}`);
  return claims;
}

/** The first rule whose every claim matches, with the values it matched; refused when none does. */
function ruleFor(trusted: WorkloadIssuer, claims: JWTPayload): { serviceAccount: string; matched: Record<string, string> } {
  for (const rule of trusted.rules) {
    const matched: Record<string, string> = {};
    const all = Object.entries(rule.claims).every(([name, pattern]) => {
      const value = workloadClaim(trusted.kind, claims, name);
      if (value === undefined || !claimMatches(pattern, value)) return false;
      matched[name] = value;
      return true;
    });
    if (all) return { serviceAccount: rule.serviceAccount, matched };
  }
  throw refused(`no rule of the workload issuer ${trusted.issuer} matches the assertion (sub ${JSON.stringify(String(claims.sub))})`);
}

/**
 * Checks a workload's token (RFC 7523 §3; docs/workload-identity.md "Checks") and returns the
 * service account it acts as, on which project. The `jti` (or the token's hash) is claimed once in
 * the shared Redis only after every other check passed.
 */
export async function verifyWorkload(deps: WorkloadDeps, req: { assertion: unknown; resource: unknown }): Promise<WorkloadOutcome> {
  const { claims: peek, typ } = unverified(req.assertion);
  const assertion = req.assertion as string;
  if (typ === ID_JAG_TYP) throw refused('an ID-JAG is traded by its own client, not as a workload token');
  const project = await projectOf(deps, req.resource);
  const trusted = await issuerOf(deps, project.workspace, peek);
  if (!trusted) throw refused(`the assertion's issuer is not a workload issuer of the workspace of ${String(req.resource)}`);
  const claims = await verified(deps, assertion, trusted, project.workspace);
  const { serviceAccount, matched } = ruleFor(trusted, claims);

  const bot = await deps.accounts.bots.get(serviceAccount);
  if (!bot || bot.revoked || bot.workspace !== project.workspace) throw refused(`the service account ${serviceAccount} is not live`);
  if (!bot.grants[project.slug]) throw refused(`the service account ${bot.name} has no access to project ${project.slug}`);

  // One use across every replica, remembered as long as the token could still be accepted.
  const jti = claims.jti;
  const once = typeof jti === 'string' && jti.length > 0 && jti.length <= WORKLOAD_JTI_MAX_LENGTH ? `jti\n${jti}` : `token\n${assertion}`;
  const now = Math.floor(Date.now() / 1000);
  const ttl = Math.max(1, claims.exp! - now + WORKLOAD_CLOCK_TOLERANCE_SECONDS);
  const key = OK.workloadJti(createHash('sha256').update(`${trusted.issuer}\n${once}`).digest('base64url'));
  if ((await deps.redis.set(key, '1', 'EX', ttl, 'NX')) !== 'OK') throw refused('the assertion was already used');
  return { serviceAccount: bot, project, resource: req.resource as string, trusted, subject: String(claims.sub), matched };
}
