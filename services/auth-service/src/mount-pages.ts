/**
 * The auth host's pages (docs/auth-service.md "Pages"): sign-in with its second factor and single
 * sign-on, password reset, email verification, sign-up and sign-out, the OAuth interaction pages,
 * invitations, the dashboard and the home page; and what they share: single sign-on, the second
 * factor, email verification and the management layer.
 */
import express, { type Express, type Request } from 'express';
import type { Accounts, Redis } from '@svc/accounts';
import type { Config } from '@svc/config';
import type { Logger } from '@svc/logger';
import { createMailer, type Mailer } from '@svc/mail';
import { createManagement, type Management } from '@svc/management';
import { createScimDirectory, createScimTokens, SSO_MAX_SAML_RESPONSE_BYTES, type ResolveTxt } from '@svc/sso';
import { createUpstreams } from '@svc/upstreams';
import { WebhookStore } from '@svc/webhooks';
import type Provider from 'oidc-provider';
import { factorFrame } from './dashboard/factor-frame.ts';
import { dashboardRoutes, type DashboardDeps } from './dashboard/routes.ts';
import { secondFactor } from './factors/routes.ts';
import type { Throttle, ThrottleLimits } from './http/throttle.ts';
import { ROUTES } from './http/routes.ts';
import type { WebSessions } from './http/web-session.ts';
import { createSso } from './sso/create-sso.ts';
import { emailVerification } from './pages/email-verification.ts';
import { render } from './ui/html.ts';
import { interactionPages } from './pages/interaction.ts';
import { invitationPages } from './pages/invitation.ts';
import { homePage } from './ui/layout.ts';
import { passwordReset } from './pages/password-reset.ts';
import { signIn } from './pages/sign-in.ts';
import { signOut } from './pages/sign-out.ts';
import { signUp } from './pages/sign-up.ts';

/** What the pages read. */
export interface PagesDeps {
  config: Config;
  redis: Redis;
  accounts: Accounts;
  logger: Logger;
  provider: Provider;
  web: WebSessions;
  throttle: Throttle;
  limits: ThrottleLimits;
  /** Outgoing email; from config.email when absent. */
  mailer?: Mailer | undefined;
  resolveTxt?: ResolveTxt | undefined;
  now?: (() => number) | undefined;
}

/** Mounts every page on `app`; the management layer they made, for the key-expiry sweep. */
export function mountPages(app: Express, deps: PagesDeps): { management: Management } {
  const { config, redis, accounts, logger, provider, web } = deps;
  const pageDeps = { redis, accounts, web, throttle: deps.throttle, limits: deps.limits, logger };
  const mailer = deps.mailer ?? createMailer(config.email);
  const verification = emailVerification({ ...pageDeps, mailer, authUrl: config.authUrl });
  const factors = secondFactor({
    ...pageDeps,
    secure: config.authUrl.startsWith('https:'),
    authUrl: config.authUrl,
    // The passwordless sign-in honours "members must use SSO" as the password does (sso/address-route.ts).
    mayUseOwnCredentials: async (user) =>
      (await sso.route({ email: user.email, passwordGiven: true, ssoAsked: false })).kind === 'password',
    // A signed-in person's factor pages in the dashboard's frame (made below, with the management layer).
    accountFrame: (req, res, user, title, body) => framed(req, res, user, title, body),
  });
  const sso = createSso({
    redis,
    accounts,
    web,
    logger,
    throttle: deps.throttle,
    authUrl: config.authUrl,
    cookieKeys: config.cookieKeys,
    allowPrivateIssuers: config.ssoPrivateIssuers,
    ...(deps.resolveTxt ? { resolveTxt: deps.resolveTxt } : {}),
    // Another workspace's factor policy is not the provider's to answer for (docs/auth-service.md "Second factor").
    afterProvider: factors.afterProvider,
    // Made below, with the SSO settings this returns; called only once a sign-in arrives.
    clearTakenOver: (user) => management.clearTakenOver(user),
  });
  const signin = signIn({ ...pageDeps, provider, sso, afterPassword: factors.afterPassword });
  const signup = signUp({ ...pageDeps, verification });
  const signout = signOut({ ...pageDeps, redis, providerSignOutUrl: sso.providerSignOutUrl });
  const management = createManagement(accounts, {
    redis,
    mailer,
    authUrl: config.authUrl,
    baseUrl: config.baseUrl,
    onNoticeError: (err) => logger.warn('email notice not sent', { err }),
    sso: sso.settings,
    // The dashboard's Webhooks page manages endpoints in the same store the worker reads (docs/webhooks.md).
    webhooks: new WebhookStore(redis, { pepper: config.keyPepper, previousPepper: config.previousKeyPepper }),
    // The dashboard's Upstream servers page registers and refreshes servers here: the gateway's
    // store, signing key and address guard (docs/upstream-servers.md "From the dashboard").
    upstreams: createUpstreams({
      redis,
      pepper: config.keyPepper,
      issuer: config.baseUrl,
      allowedPrivate: config.upstreamAllowedPrivate,
      ...(deps.now ? { now: deps.now } : {}),
    }),
    // SCIM's tokens and directory (docs/auth-service.md "SCIM provisioning"); this service holds the
    // sessions, so ending a person's access here ends them too.
    scim: { tokens: createScimTokens(redis, config.keyPepper), directory: createScimDirectory(redis) },
    endSessions: (userId) => web.endOthers(null, userId),
  });
  const interaction = interactionPages({ provider, accounts, web, config, management, verification });
  app.get(ROUTES.signIn.path, signin.get);
  app.post(ROUTES.signIn.path, signin.post);
  app.get(ROUTES.ssoCallback.path, sso.callback);
  app.post(ROUTES.ssoBackchannelLogout.path, sso.backchannelLogout);
  app.get(ROUTES.samlMetadata.path, sso.samlMetadata);
  app.post(ROUTES.samlAcs.path, express.urlencoded({ extended: false, limit: SSO_MAX_SAML_RESPONSE_BYTES }), sso.samlAcs);
  app.get(ROUTES.samlDone.path, sso.samlDone);
  factors.mount(app);
  const reset = passwordReset({ ...pageDeps, redis, mailer, authUrl: config.authUrl });
  app.get(ROUTES.forgot.path, reset.forgot);
  app.post(ROUTES.forgot.path, reset.sendLink);
  app.get(ROUTES.reset.path, reset.resetPage);
  app.post(ROUTES.reset.path, reset.reset);
  app.get(ROUTES.verifyEmail.path, verification.page);
  app.post(ROUTES.verifyEmail.path, verification.confirm);
  app.get(ROUTES.signUp.path, signup.get);
  app.post(ROUTES.signUp.path, signup.post);
  app.get(ROUTES.signOut.path, signout.get);
  app.post(ROUTES.signOut.path, signout.post);
  app.get(ROUTES.interaction.path, interaction.get);
  app.post(ROUTES.consent.path, interaction.consent);
  app.post(ROUTES.abort.path, interaction.abort);
  app.post(ROUTES.requestAccess.path, interaction.requestAccess);
  app.post(ROUTES.createProject.path, interaction.createProject);
  app.post(ROUTES.confirmEmail.path, interaction.resendConfirmation);
  const invite = invitationPages(pageDeps);
  app.get(ROUTES.invitation.path, invite.page);
  app.post(ROUTES.invitation.path, invite.accept);
  const dashboardDeps: DashboardDeps = {
    accounts,
    redis,
    web,
    logger,
    management,
    verification,
    authUrl: config.authUrl,
    baseUrl: config.baseUrl,
    passkeys: factors.passkeys,
    ...(deps.now ? { now: deps.now } : {}),
  };
  const framed = factorFrame(dashboardDeps);
  app.use(ROUTES.dashboard.path, dashboardRoutes(dashboardDeps));
  app.get(ROUTES.home.path, async (req: Request, res) => {
    const userId = await web.userOf(req);
    const user = userId ? await accounts.users.get(userId) : null;
    render(res, homePage(user?.email ?? null));
  });
  return { management };
}
