/**
 * Single sign-on's parts, made from their dependencies (docs/auth-service.md "Single sign-on"):
 * the store, the owner's settings, the sign-in flow, and the sign-in page's hook.
 */
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Accounts, Redis, User } from '@svc/accounts';
import type { Logger } from '@svc/logger';
import type { WebSessions } from '../http/web-session.ts';
import { html, render } from '../ui/html.ts';
import { page } from '../ui/layout.ts';
import { routeOfAddress, type AddressRoute } from './address-route.ts';
import { backchannelLogout } from './backchannel-logout.ts';
import {
  defaultResolveTxt,
  type ResolveTxt,
  ssoSettings,
  createSsoStore,
  createLogoutStore,
  providerSession,
  SSO_SESSION_MAX_SECONDS,
} from '@svc/sso';
import { ssoFlow } from './flow.ts';
import { providerClient } from './provider-client.ts';
import { provisioning, type SsoPerson } from './provision.ts';
import { pageRefusalOf } from '@svc/errors';

export interface SsoDeps {
  redis: Redis;
  accounts: Accounts;
  web: WebSessions;
  logger: Logger;
  authUrl: string;
  cookieKeys: string[];
  /** SSO_PRIVATE_ISSUERS=allow. */
  allowPrivateIssuers: boolean;
  /** DNS TXT lookups of domain proofs; node:dns/promises unless a test gives its own. */
  resolveTxt?: ResolveTxt;
  now?: () => number;
  /**
   * The second factor's hook (factors/routes.ts `afterProvider`): the page where the sign-in waits
   * for a factor another workspace of the person requires, or null when the session may start.
   */
  /** The management layer's takeover clean-up (docs/security.md "Unproven addresses"). */
  clearTakenOver: (user: User) => Promise<unknown>;
  afterProvider: (res: Response, user: User, p: { returnTo: string; via: string; sessionSeconds: number }) => Promise<string | null>;
}

export function createSso(deps: SsoDeps) {
  const store = createSsoStore(deps.redis, deps.cookieKeys);
  const logouts = createLogoutStore(deps.redis);
  const discover = providerClient({ allowPrivate: deps.allowPrivateIssuers });
  const flow = ssoFlow({
    store,
    discover,
    provisioning: provisioning({ accounts: deps.accounts, store, clearTakenOver: deps.clearTakenOver }),
    web: deps.web,
    logger: deps.logger,
    authUrl: deps.authUrl,
    secure: deps.authUrl.startsWith('https:'),
  });
  const settings = ssoSettings({
    accounts: deps.accounts,
    store,
    discover,
    resolveTxt: deps.resolveTxt ?? defaultResolveTxt,
    now: deps.now ?? Date.now,
  });

  /**
   * The person the provider of `workspace` vouched for: their session starts (SSO_SESSION_MAX_SECONDS),
   * unless another workspace of theirs requires a second factor first (docs/auth-service.md "Single
   * sign-on and the second factor"). Where the browser goes next.
   */
  async function signedIn(req: Request, res: Response, workspace: string, person: SsoPerson, returnTo: string): Promise<string> {
    const { user, requestId } = person;
    const waiting = await deps.afterProvider(res, user, { returnTo, via: workspace, sessionSeconds: SSO_SESSION_MAX_SECONDS });
    if (waiting) return waiting;
    // The provider's session is named on the browser's, so its back-channel logout ends this one
    // (sso/backchannel-logout.ts; OpenID Connect Back-Channel Logout 1.0 §2.7).
    const fields = person.sid ? { ssoSession: providerSession(person.sid.issuer, person.sid.sid) } : undefined;
    if (person.sid) await logouts.signedIn(person.sid.issuer, person.sid.sid, user.id);
    await deps.web.start(req, res, user.id, { ttlSeconds: SSO_SESSION_MAX_SECONDS, ...(fields ? { fields } : {}) });
    await deps.accounts.audit.recordOwn(user, 'signin.succeeded', { source: req.ip ?? 'unknown', requestId }, { method: 'sso', workspace });
    return returnTo;
  }

  return {
    settings,
    /** The sign-in page's hook: which way this address signs in. */
    route: (input: { email: string; passwordGiven: boolean; ssoAsked: boolean }): Promise<AddressRoute> => routeOfAddress(store, input),
    /** Sends the browser to the workspace's provider. */
    start: flow.start,
    /** POST /api/sso/backchannel-logout/:workspace: the provider ends a person's svc sessions (backchannel-logout.ts). */
    backchannelLogout: backchannelLogout({ store, logouts, discover, web: deps.web, accounts: deps.accounts, logger: deps.logger }),
    /** GET /sso/callback: signed in and back where the sign-in started, or a page saying why not. */
    async callback(req: Request, res: Response): Promise<void> {
      const outcome = await flow.callback(req, res);
      if (outcome.ok) return void res.redirect(303, await signedIn(req, res, outcome.workspace, outcome.person, outcome.returnTo));
      const { refused, workspace } = outcome;
      if (workspace) {
        await deps.accounts.audit.record({
          workspace,
          actor: 'sso',
          action: 'sso.refused',
          target: `workspace:${workspace}`,
          source: req.ip ?? 'unknown',
          requestId: randomUUID(),
          detail: { reason: refused.message },
        });
      }
      const body = html`<p class="error" role="alert">${refused.message}</p><nav><a href="/signin">Sign in again</a></nav>`;
      render(res, page('Sign-in refused', body), { refusal: pageRefusalOf(refused.status) });
    },
  };
}

export type Sso = ReturnType<typeof createSso>;
