/**
 * Single sign-on's parts, made from their dependencies (docs/auth-service.md "Single sign-on"):
 * the store, the owner's settings, the sign-in flow, and the sign-in page's hook.
 */
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Accounts, Redis } from '@svc/accounts';
import type { Logger } from '@svc/logger';
import type { WebSessions } from '../http/web-session.ts';
import { html, render } from '../pages/html.ts';
import { page } from '../pages/layout.ts';
import { routeOfAddress, type AddressRoute } from './address-route.ts';
import { defaultResolveTxt, type ResolveTxt, ssoSettings, createSsoStore } from '@svc/sso';
import { ssoFlow } from './flow.ts';
import { providerClient } from './provider-client.ts';
import { provisioning } from './provision.ts';

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
}

export function createSso(deps: SsoDeps) {
  const store = createSsoStore(deps.redis, deps.cookieKeys);
  const discover = providerClient({ allowPrivate: deps.allowPrivateIssuers });
  const flow = ssoFlow({
    store,
    discover,
    provisioning: provisioning({ accounts: deps.accounts, store }),
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

  return {
    settings,
    /** The sign-in page's hook: which way this address signs in. */
    route: (input: { email: string; passwordGiven: boolean; ssoAsked: boolean }): Promise<AddressRoute> => routeOfAddress(store, input),
    /** Sends the browser to the workspace's provider. */
    start: flow.start,
    /** GET /sso/callback: signed in and back where the sign-in started, or a page saying why not. */
    async callback(req: Request, res: Response): Promise<void> {
      const outcome = await flow.callback(req, res);
      if (outcome.ok) return void res.redirect(303, outcome.returnTo);
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
      render(res, page('Sign-in refused', body), { status: refused.status });
    },
  };
}

export type Sso = ReturnType<typeof createSso>;
