/**
 * The SSO sign-in (docs/auth-service.md "Single sign-on"): authorization code with PKCE (RFC 7636),
 * state and nonce (OpenID Connect Core 1.0 §3.1), validated by openid-client: the ID token's
 * signature, `iss`, `aud`, `exp` and `nonce`. We then require `email_verified`, and an address at a
 * domain the workspace proved, before the person is signed in.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import * as oc from 'openid-client';
import type { Logger } from '@svc/logger';
import type { WebSessions } from '../http/web-session.ts';
import { readCookie } from '../http/web-session.ts';
import { ROUTES } from '../http/routes.ts';
import { SSO_STATE_TTL_SECONDS, SsoError, type SsoStore } from '@svc/sso';
import type { Discover } from './provider-client.ts';
import { identityOfIdToken, type Provisioning, type SsoPerson } from './provision.ts';

/** The cookie binding a started sign-in to the browser that started it. */
const BROWSER_COOKIE = 'svc_sso';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

export interface SsoFlowDeps {
  store: SsoStore;
  discover: Discover;
  provisioning: Provisioning;
  web: WebSessions;
  logger: Logger;
  authUrl: string;
  secure: boolean;
}

/** Where the provider sends the browser back. */
const CALLBACK_PATH = ROUTES.ssoCallback.path;

/**
 * The code and the claim (or parameter) of an openid-client check that failed: openid-client wraps
 * oauth4webapi's error, whose `cause` names what was compared ({ claim: 'nonce', expected, ... }).
 */
function comparison(err: unknown): { code: unknown; compared: unknown; messages: string } {
  let at = err as { code?: unknown; cause?: unknown; claim?: unknown; attribute?: unknown; message?: unknown } | undefined;
  let code: unknown;
  const messages: string[] = [];
  for (let depth = 0; at && typeof at === 'object' && depth < 4; depth++) {
    code ??= at.code;
    if (typeof at.message === 'string') messages.push(at.message);
    if (at.claim !== undefined || at.attribute !== undefined)
      return { code, compared: at.claim ?? at.attribute, messages: messages.join('; ') };
    at = at.cause as typeof at;
  }
  return { code, compared: undefined, messages: messages.join('; ') };
}

/** Why the provider's answer was refused, in the person's words (the library's detail is logged). */
function answerRefusal(err: unknown): SsoError {
  if (err instanceof SsoError) return err;
  const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  if (err instanceof oc.AuthorizationResponseError) {
    return new SsoError(403, `Your company's sign-in refused you (${err.error}). Ask your administrator for access.`, detail);
  }
  const { code, compared, messages } = comparison(err);
  const full = `${messages} (${String(code)}, ${String(compared)})`;
  if (compared === 'nonce') {
    return new SsoError(400, 'The sign-in answer was not for this sign-in (its nonce differs). Sign in again.', full);
  }
  // The ID token's `iss`, or the authorization response's (RFC 9207), names another issuer.
  if (compared === 'iss' || /"iss"/.test(messages)) {
    return new SsoError(400, "The answer was issued by another provider than your company's. Sign in again.", full);
  }
  return new SsoError(502, "Your company's sign-in answered something svc cannot accept. Try again, or ask your administrator.", full);
}

/**
 * What the callback did: accepted the person for `workspace` (the sign-in continues to `returnTo`,
 * create-sso.ts starts its session), or refused, saying why.
 */
export type CallbackOutcome =
  { ok: true; workspace: string; person: SsoPerson; returnTo: string } | { ok: false; workspace: string | null; refused: SsoError };

export function ssoFlow(deps: SsoFlowDeps) {
  const redirectUri = new URL(CALLBACK_PATH, deps.authUrl).href;
  const cookie = { httpOnly: true, sameSite: 'lax' as const, secure: deps.secure, path: CALLBACK_PATH };

  return {
    /** Sends the browser to the workspace's provider, remembering state, nonce and verifier. */
    async start(res: Response, workspace: string, email: string, returnTo: string): Promise<void> {
      const settings = await deps.store.settings(workspace);
      const secret = await deps.store.secret(workspace);
      if (!settings || !secret) throw new SsoError(404, 'Single sign-on is not set up for this address.');
      const config = await deps.discover(settings.issuer, settings.clientId, secret);
      const verifier = oc.randomPKCECodeVerifier();
      const state = oc.randomState();
      const nonce = oc.randomNonce();
      const browser = randomBytes(32).toString('base64url');
      await deps.store.startSignIn(state, { workspace, nonce, verifier, browser: sha(browser), returnTo });
      res.cookie(BROWSER_COOKIE, browser, { ...cookie, maxAge: SSO_STATE_TTL_SECONDS * 1000 });
      const url = oc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid email profile groups',
        code_challenge: await oc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
        // OpenID Connect Core 1.0 §3.1.2.1: the address typed, so the person need not type it again.
        login_hint: email,
      });
      res.redirect(303, url.href);
    },

    /** GET /sso/callback: the provider's answer, checked, then the person accepted (their session is the caller's). */
    async callback(req: Request, res: Response): Promise<CallbackOutcome> {
      const state = typeof req.query['state'] === 'string' ? req.query['state'] : '';
      const pending = state ? await deps.store.takeSignIn(state) : null;
      res.clearCookie(BROWSER_COOKIE, cookie);
      if (!pending) {
        return { ok: false, workspace: null, refused: new SsoError(400, 'This sign-in expired or was already used. Sign in again.') };
      }
      const browser = readCookie(req, BROWSER_COOKIE);
      if (!browser || sha(browser) !== pending.browser) {
        return {
          ok: false,
          workspace: pending.workspace,
          refused: new SsoError(400, 'This sign-in was started in another browser. Sign in again here.'),
        };
      }
      try {
        const settings = await deps.store.settings(pending.workspace);
        const secret = await deps.store.secret(pending.workspace);
        if (!settings || !secret) throw new SsoError(404, 'Single sign-on is no longer set up for this workspace.');
        const config = await deps.discover(settings.issuer, settings.clientId, secret);
        const current = new URL(req.originalUrl, deps.authUrl);
        const tokens = await oc.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: pending.verifier,
          expectedState: state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        });
        const claims = tokens.claims();
        if (!claims) throw new SsoError(502, "Your company's sign-in sent no ID token.");
        const person = await deps.provisioning.signIn(pending.workspace, settings, identityOfIdToken(claims), req.ip ?? 'unknown');
        return { ok: true, workspace: pending.workspace, person, returnTo: pending.returnTo };
      } catch (err) {
        const refused = answerRefusal(err);
        deps.logger.info('sso sign-in refused', { workspace: pending.workspace, problem: refused.message, detail: refused.detail });
        return { ok: false, workspace: pending.workspace, refused };
      }
    },
  };
}
