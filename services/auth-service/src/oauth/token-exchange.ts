/**
 * Delegation by token exchange (RFC 8693; docs/auth-service.md "Delegation (token exchange)"): the
 * checks that decide whether the client making the request may have a token for a sub-agent from
 * a person's access token it holds (the `subject_token`), and what that token is. It never exceeds
 * its parent: the same project's MCP resource, a level at or below the parent's, a lifetime within
 * the parent's remaining one, at most DELEGATION_MAX_DEPTH exchanges down one line, and the
 * requesting client named as the new actor of the `act` chain (RFC 8693 §4.1). Every refusal of
 * the request or its subject token is `invalid_request` (RFC 8693 §2.2.2), a resource other than
 * the parent's `invalid_target` (idem), a level above the parent's `invalid_scope` (RFC 6749 §5.2).
 */
import type { Accounts, Project, User } from '@svc/accounts';
import { actorChain, DELEGATION_MAX_DEPTH } from '@svc/accounts';
import { parseCredential } from '@svc/credentials';
import { approvedLevel, isKeyLevel, MCP_SCOPES, roleAtLeast, tokenRole, type KeyLevel } from '@svc/policy';
import { errors, type AccessToken, type Grant, type KoaContextWithOIDC } from 'oidc-provider';
import { projectOfResource } from './resource.ts';

/** RFC 8693 §2.1. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** RFC 8693 §3: the one token type exchanged here, and the one issued. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** RFC 8693 §3: named only to say why it is refused. */
const REFRESH_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:refresh_token';
/** A delegated token lives at most 1 hour, and never past its parent. No refresh token. */
export const DELEGATED_TOKEN_MAX_TTL_SECONDS = 3_600;

/** What the exchange gives: the parent, for whom and where, and the delegated token's terms. */
export interface Delegation {
  parent: AccessToken;
  user: User;
  project: Project;
  resource: string;
  level: KeyLevel;
  /** The new token's actors: the requesting client first, then the parent's chain. */
  chain: string[];
  /**
   * When the new token and its Grant end, epoch seconds: set as such, never as a lifetime counted
   * from their save, which a second's tick between this check and the save would carry past the parent's.
   */
  exp: number;
}

const refuse = (description: string) => new errors.InvalidRequest(description);
const one = (params: Record<string, unknown>, name: string): string | undefined => {
  const value = params[name];
  if (value !== undefined && typeof value !== 'string') throw refuse(`${name} must be given once`);
  return value === '' ? undefined : value;
};

/** RFC 8693 §2.1: the token types asked for and given; no actor token. */
function checkTypes(params: Record<string, unknown>): string {
  const subjectToken = one(params, 'subject_token');
  if (!subjectToken) throw refuse('subject_token is required: the access token the sub-agent is to act under');
  const subjectType = one(params, 'subject_token_type');
  if (subjectType === REFRESH_TOKEN_TYPE || parseCredential(subjectToken)?.kind === 'refresh_token')
    throw refuse('a refresh token cannot be exchanged: present an access token');
  if (subjectType !== ACCESS_TOKEN_TYPE) throw refuse(`subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
  const requested = one(params, 'requested_token_type');
  if (requested !== undefined && requested !== ACCESS_TOKEN_TYPE) throw refuse(`only ${ACCESS_TOKEN_TYPE} is issued`);
  // docs/auth-service.md "Delegation (token exchange)": the authenticated client is the actor.
  if (params['actor_token'] !== undefined || params['actor_token_type'] !== undefined)
    throw refuse('actor_token is not accepted: the client making the request is the actor');
  return subjectToken;
}

/**
 * The subject token: a live access token of a person (never a service account's client-credentials
 * token), bound to one project's MCP resource, under a live Grant of its own client and person.
 */
async function liveParent(ctx: KoaContextWithOIDC, value: string): Promise<{ parent: AccessToken; grant: Grant }> {
  const { provider } = ctx.oidc;
  const parent = await provider.AccessToken.find(value);
  // find() allows the clock tolerance past `exp`; a parent must have time left to hand down.
  if (!parent || parent.isExpired || (parent as { consumed?: unknown }).consumed)
    throw refuse("subject_token is not an active access token of a person's");
  if (parent.expiresWithSession) throw refuse('a token that ends with its browser session cannot be exchanged');
  if (parent['x5t#S256']) throw refuse('a certificate-bound token cannot be exchanged');
  const grant = await provider.Grant.find(parent.grantId);
  if (!grant || grant.clientId !== parent.clientId || grant.accountId !== parent.accountId)
    throw refuse("subject_token is not an active access token of a person's");
  return { parent, grant };
}

/** The resource of the new token: the parent's, asked for again or not at all (RFC 8707; RFC 8693 §2.1). */
function targetOf(params: Record<string, unknown>, parentAud: string): string {
  for (const name of ['resource', 'audience']) {
    const asked = params[name];
    if (asked === undefined) continue;
    if (typeof asked !== 'string') throw new errors.InvalidTarget(`${name} must be one URL`);
    if (asked !== parentAud) throw new errors.InvalidTarget(`a delegated token is for the subject_token's own resource, ${parentAud}`);
  }
  return parentAud;
}

/**
 * The level of the new token: at most the parent's, the lowest of the person's role, the level the
 * Grant records and the parent's own scope (docs/auth-service.md "Scopes"); the level asked for
 * (`mcp:read|write|admin`), else the parent's. Only MCP scopes may be asked for.
 */
function levelOf(parentLevel: KeyLevel, requestedScope: unknown): KeyLevel {
  const asked = typeof requestedScope === 'string' ? requestedScope.split(' ').filter(Boolean) : [];
  const unknown = asked.filter((s) => !(MCP_SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw new errors.InvalidScope(`a delegated token takes MCP scopes only, not ${unknown.join(' ')}`, unknown.join(' '));
  // `mcp` names no level of its own: the parent's.
  if (!asked.some((s) => s !== 'mcp')) return parentLevel;
  const top = approvedLevel(asked.join(' '));
  if (!roleAtLeast(parentLevel, top))
    throw new errors.InvalidScope(
      `the subject_token acts at ${parentLevel} at most; a delegated token cannot act above it`,
      String(requestedScope),
    );
  return top;
}

/** The new chain: the requesting client, then the parent's actors (or its own client). */
function chainOf(parent: AccessToken, requester: string): string[] {
  const act = (parent.extra as { act?: unknown } | undefined)?.act;
  const prior = act === undefined ? [parent.clientId ?? ''] : actorChain(act);
  if (!prior || prior[0] !== parent.clientId) throw refuse('the delegation chain of subject_token cannot be read');
  const chain = [requester, ...prior];
  // docs/decisions.md "Delegation (token exchange)": the depth bound.
  if (chain.length - 1 > DELEGATION_MAX_DEPTH) throw refuse(`a token may be delegated at most ${DELEGATION_MAX_DEPTH} times down one line`);
  return chain;
}

/** When the new token ends: DELEGATED_TOKEN_MAX_TTL_SECONDS from now, and never past its parent or the parent's Grant. */
function expOf(parent: AccessToken, grant: Grant, nowSeconds: number): number {
  const ends = [parent.exp, grant.exp].filter((e): e is number => typeof e === 'number');
  const exp = Math.min(nowSeconds + DELEGATED_TOKEN_MAX_TTL_SECONDS, ...ends);
  if (exp - nowSeconds < 1) throw refuse("subject_token is not an active access token of a person's");
  return exp;
}

/** Checks a token-exchange request and returns the delegation it may have. */
export async function checkTokenExchange(deps: { accounts: Accounts; baseUrl: string }, ctx: KoaContextWithOIDC): Promise<Delegation> {
  const { client, params } = ctx.oidc;
  if (!client || !params) throw new Error('the token endpoint runs client authentication first');
  const value = checkTypes(params);
  const { parent, grant } = await liveParent(ctx, value);
  const aud = typeof parent.aud === 'string' ? parent.aud : null;
  const slug = projectOfResource(deps.baseUrl, aud);
  if (!aud || !slug) throw refuse("subject_token is not an access token for a project's MCP resource");
  const resource = targetOf(params, aud);
  const chain = chainOf(parent, client.clientId);
  const [project, user] = await Promise.all([deps.accounts.workspaces.getProject(slug), deps.accounts.users.get(parent.accountId)]);
  if (!project || !user) throw refuse('subject_token names a project or person that no longer exists');
  const role = await deps.accounts.workspaces.roleOf(user.id, project);
  const parentLevel = tokenRole(role, approvedLevel(grant.getResourceScope(aud)), parent.scope ?? '');
  if (!isKeyLevel(parentLevel)) throw refuse(`the person has no role on project ${project.slug}`);
  const level = levelOf(parentLevel, params['scope']);
  const exp = expOf(parent, grant, Math.floor(Date.now() / 1000));
  return { parent, user, project, resource, level, chain, exp };
}
