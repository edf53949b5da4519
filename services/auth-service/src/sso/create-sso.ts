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
import { providerSignOut } from './provider-sign-out.ts';
import type { Limiter } from '@svc/limits';
import {
  createLogoutStore,
  createSamlStore,
  createSsoStore,
  defaultResolveTxt,
  providerSession,
  SsoError,
  ssoSettings,
  SSO_SESSION_MAX_SECONDS,
  type ResolveTxt,
} from '@svc/sso';
import { ssoFlow, type CallbackOutcome } from './flow.ts';
import { samlFlow } from './saml-flow.ts';
import { providerClient } from './provider-client.ts';
import { provisioning, type SsoPerson } from './provision.ts';
import { pageRefusalOf } from '@svc/errors';

export interface SsoDeps {
  redis: Redis;
  accounts: Accounts;
  web: WebSessions;
  logger: Logger;
  /** The limiter the SAML ACS's per-workspace bucket counts on (docs/auth-service.md "SAML"). */
  throttle: Limiter;
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
  const accept = provisioning({ accounts: deps.accounts, store, clearTakenOver: deps.clearTakenOver });
  const secure = deps.authUrl.startsWith('https:');
  const flow = ssoFlow({ store, discover, provisioning: accept, web: deps.web, logger: deps.logger, authUrl: deps.authUrl, secure });
  const saml = samlFlow({
    store,
    saml: createSamlStore(deps.redis),
    provisioning: accept,
    throttle: deps.throttle,
    logger: deps.logger,
    authUrl: deps.authUrl,
    secure,
  });
  const settings = ssoSettings({
    accounts: deps.accounts,
    store,
    discover,
    resolveTxt: deps.resolveTxt ?? defaultResolveTxt,
    now: deps.now ?? Date.now,
    authUrl: deps.authUrl,
  });

  /**
   * The person the provider of `workspace` vouched for: their session starts (SSO_SESSION_MAX_SECONDS),
   * unless another workspace of theirs requires a second factor first (docs/auth-service.md "Single
   * sign-on and the second factor"). Where the browser goes next.
   */
  async function signedIn(req: Request, res: Response, workspace: string, person: SsoPerson, returnTo: string): Promise<string> {
    const { user, requestId } = person;
    // An account whose address was never proven may have been a squatter's: its sessions end.
    if (person.unproven) await deps.web.endOthers(null, user.id);
    const waiting = await deps.afterProvider(res, user, { returnTo, via: workspace, sessionSeconds: SSO_SESSION_MAX_SECONDS });
    if (waiting) return waiting;
    // The provider's session is named on the browser's, so its back-channel logout ends this one
    // (sso/backchannel-logout.ts; OpenID Connect Back-Channel Logout 1.0 §2.7).
    // Which workspace's provider started it too: signing out of svc offers signing out there (provider-sign-out.ts).
    const fields = { ssoWorkspace: workspace, ...(person.sid ? { ssoSession: providerSession(person.sid.issuer, person.sid.sid) } : {}) };
    if (person.sid) await logouts.signedIn(person.sid.issuer, person.sid.sid, user.id);
    await deps.web.start(req, res, user.id, { ttlSeconds: SSO_SESSION_MAX_SECONDS, fields });
    await deps.accounts.audit.recordOwn(user, 'signin.succeeded', { source: req.ip ?? 'unknown', requestId }, { method: 'sso', workspace });
    return returnTo;
  }

  function refusalPage(res: Response, refused: SsoError): void {
    const body = html`<p class="error" role="alert">${refused.message}</p><nav><a href="/signin">Sign in again</a></nav>`;
    render(res, page('Sign-in refused', body), { refusal: pageRefusalOf(refused.status) });
  }

  /** Either protocol's outcome: the person signed in and sent on, or the refusal audited and shown. */
  async function finish(req: Request, res: Response, outcome: CallbackOutcome): Promise<void> {
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
    refusalPage(res, refused);
  }

  return {
    settings,
    /** The sign-in page's hook: which way this address signs in. */
    route: (input: { email: string; passwordGiven: boolean; ssoAsked: boolean }): Promise<AddressRoute> => routeOfAddress(store, input),
    /** Sends the browser to the workspace's provider: its OpenID provider, or its SAML IdP. */
    async start(res: Response, workspace: string, email: string, returnTo: string): Promise<void> {
      if ((await store.settings(workspace))?.kind === 'saml') return saml.start(res, workspace, returnTo);
      return flow.start(res, workspace, email, returnTo);
    },
    /** Where signing out of svc sends a person on to sign out at the workspace's provider too (provider-sign-out.ts), or null. */
    providerSignOutUrl: providerSignOut({ store, discover, logger: deps.logger }),
    /** POST /api/sso/backchannel-logout/:workspace: the provider ends a person's svc sessions (backchannel-logout.ts). */
    backchannelLogout: backchannelLogout({ store, logouts, discover, web: deps.web, accounts: deps.accounts, logger: deps.logger }),
    /** GET /sso/callback: signed in and back where the sign-in started, or a page saying why not. */
    callback: async (req: Request, res: Response): Promise<void> => finish(req, res, await flow.callback(req, res)),
    /** POST /sso/saml/:workspace/acs: on to the step back, or a page saying why not. */
    async samlAcs(req: Request, res: Response): Promise<void> {
      const outcome = await saml.acs(req, res, String(req.params['workspace']));
      if (outcome) await finish(req, res, outcome);
    },
    /** GET /sso/saml/:workspace/done: signed in, or a page saying why not. */
    samlDone: async (req: Request, res: Response): Promise<void> =>
      finish(req, res, await saml.done(req, res, String(req.params['workspace']))),
    /** GET /sso/saml/:workspace/metadata: the SP's metadata, or a page saying SAML is not set up. */
    async samlMetadata(req: Request, res: Response): Promise<void> {
      await saml.metadata(res, String(req.params['workspace'])).catch((err: unknown) => {
        if (!(err instanceof SsoError)) throw err;
        refusalPage(res, err);
      });
    },
  };
}

export type Sso = ReturnType<typeof createSso>;
