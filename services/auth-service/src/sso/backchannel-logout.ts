/**
 * OpenID Connect Back-Channel Logout 1.0 (docs/auth-service.md "Logout from the company's
 * provider"): the workspace's provider POSTs a logout token to
 * `/api/sso/backchannel-logout/<workspace>` when a person's session there ends, or the person is
 * removed. The token is checked as §2.6 says: signed by the provider's keys (its JWKS, read
 * through the guarded client), `iss` the workspace's provider, `aud` svc's client id there, `iat`
 * recent, a `jti` claimed once, the `events` member of §2.4, a `sid` or a `sub`, and no `nonce`.
 * Then the person's svc sessions end: those the provider session `sid` signed in, or every one of
 * the person `sub` names (linked by their SSO sign-ins). Refusals are §2.8's: 400 with an OAuth error.
 */
import type { Request, Response } from 'express';
import * as oc from 'openid-client';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import type { Accounts } from '@svc/accounts';
import type { Logger } from '@svc/logger';
import { LOGOUT_TOKEN_MAX_AGE_SECONDS, providerSession, SsoError, type LogoutStore, type SsoStore } from '@svc/sso';
import { sendOAuthError } from '../http/oauth-error.ts';
import type { WebSessions } from '../http/web-session.ts';
import type { Discover } from './provider-client.ts';

/** §2.4: the member of `events` a logout token carries. */
const LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** The algorithms a provider's ID tokens are signed with in practice; `none` and HMAC never. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export interface BackchannelDeps {
  store: SsoStore;
  logouts: LogoutStore;
  discover: Discover;
  web: WebSessions;
  accounts: Accounts;
  logger: Logger;
}

class LogoutRefused extends Error {}

/** The checks of §2.6 beyond the signature, `iss`, `aud` and age (jwtVerify's). */
function checkClaims(claims: JWTPayload): { sid: string | null; sub: string | null } {
  const events = claims['events'];
  if (typeof events !== 'object' || events === null || typeof (events as Record<string, unknown>)[LOGOUT_EVENT] !== 'object')
    throw new LogoutRefused(`the token has no events claim with the member ${LOGOUT_EVENT}`);
  if ('nonce' in claims) throw new LogoutRefused('a logout token carries no nonce');
  if (typeof claims.jti !== 'string' || !claims.jti) throw new LogoutRefused('the token has no jti');
  const sid = typeof claims['sid'] === 'string' && claims['sid'] ? claims['sid'] : null;
  const sub = typeof claims.sub === 'string' && claims.sub ? claims.sub : null;
  if (!sid && !sub) throw new LogoutRefused('the token names neither a sid nor a sub');
  return { sid, sub };
}

export function backchannelLogout(deps: BackchannelDeps) {
  /** The workspace provider's keys, read through the guarded client that discovery uses. */
  async function keysOf(config: oc.Configuration) {
    const uri = config.serverMetadata().jwks_uri;
    if (!uri) throw new SsoError(502, "The provider's discovery names no jwks_uri.");
    const fetch = config[oc.customFetch] as oc.CustomFetch;
    const res = await fetch(uri, {
      method: 'GET',
      headers: { accept: 'application/json' },
      body: undefined,
      redirect: 'manual',
      signal: undefined,
    });
    if (!res.ok) throw new SsoError(502, `The provider's keys answered ${res.status}.`);
    return createLocalJWKSet((await res.json()) as JSONWebKeySet);
  }

  async function verified(workspace: string, token: string) {
    const settings = await deps.store.settings(workspace);
    const secret = await deps.store.secret(workspace);
    if (!settings || !secret) throw new LogoutRefused('single sign-on is not set up for this workspace');
    // Read unverified first, so a token that does not even claim the workspace's provider costs
    // no request to the provider (its discovery and keys).
    let claimed: JWTPayload;
    try {
      claimed = decodeJwt(token);
    } catch {
      throw new LogoutRefused('the logout token is not a JWT');
    }
    if (claimed.iss !== settings.issuer) throw new LogoutRefused("the token's iss is not this workspace's provider");
    const config = await deps.discover(settings.issuer, settings.clientId, secret);
    try {
      const { payload } = await jwtVerify(token, await keysOf(config), {
        issuer: settings.issuer,
        audience: settings.clientId,
        algorithms: ALGORITHMS,
        requiredClaims: ['iat', 'jti'],
        maxTokenAge: LOGOUT_TOKEN_MAX_AGE_SECONDS,
        clockTolerance: 30,
      });
      return { issuer: settings.issuer, payload, ...checkClaims(payload) };
    } catch (err) {
      if (err instanceof LogoutRefused) throw err;
      throw new LogoutRefused(`the token was refused: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  return async function logout(req: Request, res: Response): Promise<void> {
    res.set('Cache-Control', 'no-store');
    const workspace = String(req.params['workspace'] ?? '');
    const body = (req.body ?? {}) as Record<string, unknown>;
    const token = typeof body['logout_token'] === 'string' ? body['logout_token'] : '';
    if (!token || token.length > 16_384)
      return sendOAuthError(res, 'invalid_request', 'send one logout_token (OpenID Connect Back-Channel Logout 1.0 §2.5)');
    let v: Awaited<ReturnType<typeof verified>>;
    try {
      v = await verified(workspace, token);
      if (!(await deps.logouts.claimJti(v.issuer, String(v.payload.jti)))) throw new LogoutRefused('this logout token was used already');
    } catch (err) {
      if (!(err instanceof LogoutRefused || err instanceof SsoError)) throw err;
      deps.logger.info('back-channel logout refused', { workspace, problem: err.message });
      return sendOAuthError(res, 'invalid_request', err.message);
    }
    // §2.7: the sessions of the provider session `sid`, else every session of the person `sub` names.
    const userId = v.sid ? await deps.logouts.userOf(v.issuer, v.sid) : await deps.store.linkedUser(workspace, v.issuer, v.sub!);
    let ended = 0;
    if (userId)
      ended = v.sid
        ? await deps.web.endWhere(userId, 'ssoSession', providerSession(v.issuer, v.sid))
        : await deps.web.endOthers(null, userId);
    const user = userId ? await deps.accounts.users.get(userId) : null;
    await deps.accounts.audit.record({
      workspace,
      actor: `sso:${v.issuer}`,
      action: 'sso.logged_out',
      target: user ? `user:${user.email}` : `workspace:${workspace}`,
      source: req.ip ?? 'unknown',
      requestId: crypto.randomUUID(),
      detail: { by: v.sid ? 'sid' : 'sub', sessions_ended: String(ended) },
    });
    res.status(200).end();
  };
}
