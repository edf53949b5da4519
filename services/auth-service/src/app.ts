/**
 * createApp(deps): the auth host `{auth_url}` as an Express 5 app with oidc-provider mounted last
 * (since oidc-provider 9 every route under its mount ends the request), and also at the end of the
 * token endpoint's own steps, so a grant skips the page routes. Our steps in front of it
 * are small and named (docs/conventions.md "Shape": a request is a pipeline of small named steps).
 */
import type { RequestListener } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Accounts, Redis } from '@svc/accounts';
import { observeCommands } from '@svc/accounts';
import type { Config } from '@svc/config';
import type { Logger } from '@svc/logger';
import type { JWKS } from 'oidc-provider';
import type Provider from 'oidc-provider';
import { mountFrontSteps } from './http/front-steps.ts';
import { createMetrics, type Metrics } from './http/metrics.ts';
import { pageErrors } from './http/page-errors.ts';
import { withDirectRoute, type DirectRoute } from './http/direct-route.ts';
import { sendOAuthError } from './http/oauth-error.ts';
import { forwardedAsResolved } from './http/forwarded-headers.ts';
import { createThrottle, DEFAULT_LIMITS, type ThrottleLimits } from './http/throttle.ts';
import { postBodies, ROUTES } from './http/routes.ts';
import { createWebSessions } from './http/web-session.ts';
import { autoProvisionCheck } from './oauth/auto-provision-check.ts';
import { oauthFormBody } from './oauth/body.ts';
import { providerRequest } from './oauth/replay-body.ts';
import { refreshReplay } from './oauth/refresh-replay.ts';
import { readClientCredentialsAhead, readRefreshAhead } from './oauth/grant-read-ahead.ts';
import { tokenRequestScope } from './store/request-storage.ts';
import { defaultAuthorizeScope, defaultDeviceScope } from './oauth/default-scope.ts';
import { codeEntryThrottle } from './oauth/code-entry-throttle.ts';
import { devicePollThrottle } from './oauth/device-poll-throttle.ts';
import { registrationCors } from './oauth/registration-cors.ts';
import { registrationPolicy } from './oauth/registration-policy.ts';
import { registrationThrottle } from './oauth/registration-throttle.ts';
import type { Mailer } from '@svc/mail';
import { mountPages } from './mount-pages.ts';
import { createScimDirectory, createScimTokens, createSsoStore, type ResolveTxt } from '@svc/sso';
import { scimRouter } from './scim/router.ts';
import type { Tracing } from '@svc/telemetry';
import { createProvider, type ProviderDeps } from './provider/create-provider.ts';

export interface AppDeps {
  config: Config;
  redis: Redis;
  accounts: Accounts;
  logger: Logger;
  jwks: JWKS;
  /** Brute-force limits (tests lower them). */
  limits?: Partial<ThrottleLimits>;
  metrics?: Metrics;
  /** True while the process drains after SIGTERM: /readyz answers 503 (docs/operations.md "Rolling restarts"). */
  draining?: () => boolean;
  /** oidc-provider's outgoing fetch, for tests (ProviderDeps.fetch). */
  fetch?: ProviderDeps['fetch'];
  /** The clock of the refresh replay window (tests move it). */
  now?: () => number;
  /** Outgoing email (password reset); from config.email unless a test gives another. */
  mailer?: Mailer;
  /** DNS TXT lookups proving SSO domains; node:dns/promises unless a test gives its own. */
  resolveTxt?: ResolveTxt;
  /** OpenTelemetry tracing (docs/operations.md "Traces"); off when absent. */
  tracing?: Tracing;
}

export interface AuthApp {
  app: express.Express;
  /** The server's request listener: the app, with the token endpoint as its direct route (http/direct-route.ts). */
  handler: RequestListener;
  /** That direct route: the steps the app's router runs for a token request, as one list. */
  tokenRoute: DirectRoute;
  provider: Provider;
  metrics: Metrics;
  /** One key-expiry sweep (docs/management.md "Expiry"); the server runs it every EXPIRY_SWEEP_MS. */
  sweepKeyExpiries(): Promise<{ warned: number; expired: number }>;
}

/** docs/contract.md "Hosts and endpoints": the device grant is also accepted at its alias. */
function deviceTokenAlias(req: Request, _res: Response, next: NextFunction): void {
  const alias = ROUTES.deviceToken.path;
  if (req.path === alias) req.url = ROUTES.token.path + req.url.slice(alias.length);
  next();
}

/**
 * The token endpoint's own steps, the provider last: one storage scope per token request, reads
 * started ahead and writes awaited before the answer (docs/auth-service.md "Storage round trips").
 */
function tokenEndpointSteps(deps: AppDeps, oidcProvider: RequestHandler): RequestHandler[] {
  const { redis, accounts, config } = deps;
  const ahead = { redis, accounts, baseUrl: config.baseUrl };
  return [
    tokenRequestScope,
    devicePollThrottle({ redis }),
    readClientCredentialsAhead(ahead),
    refreshReplay({ redis, readAhead: (token) => readRefreshAhead(ahead, token), ...(deps.now ? { now: deps.now } : {}) }),
    oidcProvider,
  ];
}

/** The auth host: the front steps, the OAuth steps before oidc-provider, the pages, their error page, then oidc-provider. */
export function createApp(deps: AppDeps): AuthApp {
  const { config, redis, accounts, logger } = deps;
  const metrics = deps.metrics ?? createMetrics();
  observeCommands(redis, metrics.durations.command);
  const limits: ThrottleLimits = { ...DEFAULT_LIMITS, ...deps.limits };
  const web = createWebSessions({ redis, secure: config.authUrl.startsWith('https:'), keys: config.cookieKeys });
  const throttle = createThrottle(redis, deps.now);
  const tracer = deps.tracing?.tracer ?? null;
  const provider = createProvider({
    config,
    redis,
    accounts,
    logger,
    metrics,
    jwks: deps.jwks,
    webUserOf: (ctx) => web.userOf({ headers: { cookie: ctx.get('cookie') } } as Request),
    throttle,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
    ...(deps.now ? { now: deps.now } : {}),
    tracer,
  });

  const providerCallback = provider.callback();
  /** The last step of every request the provider serves: the addresses Express resolved, and the body our steps read handed on (replay-body.ts). */
  function oidcProvider(req: Request, res: Response): void {
    forwardedAsResolved(req);
    void providerCallback(providerRequest(req), res);
  }

  const app = express();
  const frontSteps = mountFrontSteps(app, { config, redis, metrics, tracer, draining: deps.draining ?? (() => false) });

  app.use(deviceTokenAlias);
  // docs/auth-service.md "Bodies": the endpoints that take a form also take JSON.
  app.post(postBodies('oauth'), oauthFormBody);
  app.post(ROUTES.device_authorization.path, autoProvisionCheck({ redis }), defaultDeviceScope);
  app.get(ROUTES.authorization.path, defaultAuthorizeScope);
  // Straight to the provider: no page route below serves the token endpoint, so a grant does not walk them.
  const tokenSteps = tokenEndpointSteps(deps, oidcProvider);
  app.post(ROUTES.token.path, ...tokenSteps);
  app.options(ROUTES.registration.path, registrationCors);
  app.post(
    ROUTES.registration.path,
    registrationCors,
    registrationThrottle({ throttle, rule: limits.registrationPerIp }),
    registrationPolicy,
  );

  app.post(postBodies('form'), express.urlencoded({ extended: false, limit: '16kb' }));
  const guesses = codeEntryThrottle({ redis, throttle, rule: limits.codeEntryPerIp });
  app.get(ROUTES.code_verification.path, guesses);
  app.post(ROUTES.code_verification.path, guesses);
  const { management } = mountPages(app, {
    config,
    redis,
    accounts,
    logger,
    provider,
    web,
    throttle,
    limits,
    mailer: deps.mailer,
    resolveTxt: deps.resolveTxt,
    now: deps.now,
  });

  app.use(
    ROUTES.scim.path,
    scimRouter({
      authUrl: config.authUrl,
      accounts,
      logger,
      throttle,
      tokens: createScimTokens(redis, config.keyPepper),
      directory: createScimDirectory(redis),
      store: createSsoStore(redis, config.cookieKeys),
      management,
      endSessions: (userId) => web.endOthers(null, userId),
      ...(deps.now ? { now: deps.now } : {}),
    }),
  );
  const errors = pageErrors({ redis, logger });
  app.use(errors);
  app.use(oidcProvider);
  // The token endpoint, the hot path, as a direct route: the same steps in the same order (the
  // front steps, its body reader, its own), without the router's walk past the layers ahead of it.
  const tokenRoute: DirectRoute = {
    method: 'POST',
    path: ROUTES.token.path,
    steps: [...frontSteps, deviceTokenAlias, oauthFormBody, ...tokenSteps],
    errors,
    unanswered: (res) => sendOAuthError(res, 'server_error', 'the request failed; try again'),
  };
  return {
    app,
    handler: withDirectRoute(app, tokenRoute),
    tokenRoute,
    provider,
    metrics,
    sweepKeyExpiries: () => management.sweepKeyExpiries(),
  };
}
