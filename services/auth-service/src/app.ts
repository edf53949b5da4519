/**
 * createApp(deps): the auth host `{auth_url}` as an Express 5 app with oidc-provider mounted last
 * (since oidc-provider 9 every route under its mount ends the request). Our steps in front of it
 * are small and named (docs/conventions.md "Shape": a request is a pipeline of small named steps).
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Accounts, Redis } from '@svc/accounts';
import { clientAddress, strictTransportSecurity, trustFunction, type Config } from '@svc/config';
import type { Logger } from '@svc/logger';
import type { JWKS } from 'oidc-provider';
import type Provider from 'oidc-provider';
import { mountHealth } from './http/health.ts';
import { createMetrics, type Metrics } from './http/metrics.ts';
import { sendStoreDown, storeFailure, storeOutageGuard } from './http/store-outage.ts';
import { forwardedAsResolved } from './http/forwarded-headers.ts';
import { originCheck } from './http/origin-check.ts';
import { PAGE_HEADERS } from './http/security-headers.ts';
import { createThrottle, DEFAULT_LIMITS, type ThrottleLimits } from './http/throttle.ts';
import { createWebSessions } from './http/web-session.ts';
import { autoProvisionCheck } from './oauth/auto-provision-check.ts';
import { oauthFormBody } from './oauth/body.ts';
import { providerRequest } from './oauth/replay-body.ts';
import { refreshReplay } from './oauth/refresh-replay.ts';
import { defaultAuthorizeScope, defaultDeviceScope } from './oauth/default-scope.ts';
import { codeEntryThrottle } from './oauth/code-entry-throttle.ts';
import { devicePollThrottle } from './oauth/device-poll-throttle.ts';
import { registrationPolicy } from './oauth/registration-policy.ts';
import { registrationThrottle } from './oauth/registration-throttle.ts';
import { invitationPages } from './pages/invitation.ts';
import { interactionPages } from './pages/interaction.ts';
import { render } from './pages/html.ts';
import { alertPage, homePage } from './pages/layout.ts';
import { dashboardRoutes } from './dashboard/routes.ts';
import { createMailer, type Mailer } from '@svc/mail';
import { createManagement } from '@svc/management';
import { WebhookStore } from '@svc/webhooks';
import { emailVerification } from './pages/email-verification.ts';
import { passwordReset } from './pages/password-reset.ts';
import { signIn } from './pages/sign-in.ts';
import { FACTOR_FORMS, secondFactor } from './factors/routes.ts';
import { signOut } from './pages/sign-out.ts';
import { signUp } from './pages/sign-up.ts';
import { createSso } from './sso/create-sso.ts';
import { CALLBACK_PATH } from './sso/flow.ts';
import type { ResolveTxt } from '@svc/sso';
import { ROUTES } from './provider/configuration.ts';
import type { Tracing } from '@svc/telemetry';
import { traceRequests } from './tracing/trace-requests.ts';
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
  provider: Provider;
  metrics: Metrics;
  /** One key-expiry sweep (docs/management.md "Expiry"); the server runs it every EXPIRY_SWEEP_MS. */
  sweepKeyExpiries(): Promise<{ warned: number; expired: number }>;
}

/** Paths whose bodies oidc-provider reads as forms and that also accept JSON. */
const FORM_PATHS = [
  ROUTES.token,
  ROUTES.device_authorization,
  ROUTES.introspection,
  ROUTES.revocation,
  ROUTES.pushed_authorization_request,
];
const PAGE_FORMS = [
  '/signin',
  '/signup',
  '/signout',
  '/interaction/:uid/consent',
  '/interaction/:uid/abort',
  '/interaction/:uid/request-access',
  '/interaction/:uid/create-project',
  '/interaction/:uid/confirm-email',
  '/invitation',
  '/forgot',
  '/reset',
  '/verify-email',
  ROUTES.code_verification,
  ...FACTOR_FORMS,
];

export function createApp(deps: AppDeps): AuthApp {
  const { config, redis, accounts, logger } = deps;
  const metrics = deps.metrics ?? createMetrics();
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
  const pageDeps = { redis, accounts, web, throttle, limits, logger };

  const app = express();
  app.disable('x-powered-by');
  // docs/operations.md "Proxies": only the named proxies' X-Forwarded-For is read.
  const trusted = trustFunction(config.trustProxy);
  app.set('trust proxy', trusted);
  // First, so every later step runs inside the request's span; absent when tracing is off.
  if (tracer) app.use(traceRequests(tracer));
  // req.ip is the one client address every throttle and audit entry uses, decided as the gateway
  // decides it (clientAddress of @svc/config).
  app.use(function resolveClientAddress(req, _res, next) {
    Object.defineProperty(req, 'ip', { value: clientAddress(req, trusted), configurable: true });
    next();
  });
  app.use(function countRequests(req, res, next) {
    res.on('finish', () => metrics.requests.inc({ method: req.method, status: String(res.statusCode) }));
    next();
  });
  const hsts = strictTransportSecurity(config.authUrl);
  app.use(function securityHeaders(req, res, next) {
    if (hsts) res.set('Strict-Transport-Security', hsts);
    // oidc-provider's own HTML under /api/ (its error page) sets them in renderError.
    if (!req.path.startsWith('/api/') && !req.path.startsWith('/.well-known/')) res.set(PAGE_HEADERS);
    next();
  });
  mountHealth(app, { redis, metrics, draining: deps.draining ?? (() => false) });
  app.use(originCheck({ authUrl: config.authUrl }));
  app.use(storeOutageGuard(redis));

  // docs/contract.md "Hosts and endpoints": the device grant is also accepted here.
  app.use(function deviceTokenAlias(req, _res, next) {
    if (req.path === '/api/oauth/device/token') req.url = ROUTES.token + req.url.slice('/api/oauth/device/token'.length);
    next();
  });
  app.post(FORM_PATHS, oauthFormBody);
  app.post(ROUTES.device_authorization, autoProvisionCheck({ redis }), defaultDeviceScope);
  app.get(ROUTES.authorization, defaultAuthorizeScope);
  app.post(ROUTES.token, devicePollThrottle({ redis }), refreshReplay({ redis, ...(deps.now ? { now: deps.now } : {}) }));
  app.post(ROUTES.registration, registrationThrottle({ throttle, rule: limits.registrationPerIp }), registrationPolicy);

  app.post(PAGE_FORMS, express.urlencoded({ extended: false, limit: '16kb' }));
  const guesses = codeEntryThrottle({ redis, throttle, rule: limits.codeEntryPerIp });
  app.get(ROUTES.code_verification, guesses);
  app.post(ROUTES.code_verification, guesses);
  const mailer = deps.mailer ?? createMailer(config.email);
  const verification = emailVerification({ ...pageDeps, mailer, authUrl: config.authUrl });
  const factors = secondFactor({
    ...pageDeps,
    secure: config.authUrl.startsWith('https:'),
    authUrl: config.authUrl,
    // The passwordless sign-in honours "members must use SSO" as the password does (sso/address-route.ts).
    mayUseOwnCredentials: async (user) =>
      (await sso.route({ email: user.email, passwordGiven: true, ssoAsked: false })).kind === 'password',
  });
  const sso = createSso({
    redis,
    accounts,
    web,
    logger,
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
  const signout = signOut({ ...pageDeps, redis });
  const management = createManagement(accounts, {
    redis,
    mailer,
    authUrl: config.authUrl,
    baseUrl: config.baseUrl,
    onNoticeError: (err) => logger.warn('email notice not sent', { err }),
    sso: sso.settings,
    // The dashboard's Webhooks page manages endpoints in the same store the worker reads (docs/webhooks.md).
    webhooks: new WebhookStore(redis, { pepper: config.keyPepper, previousPepper: config.previousKeyPepper }),
  });
  const interaction = interactionPages({ provider, accounts, web, config, management, verification });
  app.get('/signin', signin.get);
  app.post('/signin', signin.post);
  app.get(CALLBACK_PATH, sso.callback);
  factors.mount(app);
  const reset = passwordReset({ ...pageDeps, redis, mailer, authUrl: config.authUrl });
  app.get('/forgot', reset.forgot);
  app.post('/forgot', reset.sendLink);
  app.get('/reset', reset.resetPage);
  app.post('/reset', reset.reset);
  app.get('/verify-email', verification.page);
  app.post('/verify-email', verification.confirm);
  app.get('/signup', signup.get);
  app.post('/signup', signup.post);
  app.get('/signout', signout.get);
  app.post('/signout', signout.post);
  app.get('/interaction/:uid', interaction.get);
  app.post('/interaction/:uid/consent', interaction.consent);
  app.post('/interaction/:uid/abort', interaction.abort);
  app.post('/interaction/:uid/request-access', interaction.requestAccess);
  app.post('/interaction/:uid/create-project', interaction.createProject);
  app.post('/interaction/:uid/confirm-email', interaction.resendConfirmation);
  const invite = invitationPages(pageDeps);
  app.get('/invitation', invite.page);
  app.post('/invitation', invite.accept);
  app.use(
    '/dashboard',
    dashboardRoutes({ accounts, redis, web, logger, management, verification, ...(deps.now ? { now: deps.now } : {}) }),
  );
  app.get('/', async (req, res) => {
    const userId = await web.userOf(req);
    const user = userId ? await accounts.users.get(userId) : null;
    render(res, homePage(user?.email ?? null));
  });

  app.use(function pageErrors(err: unknown, req: Request, res: Response, _next: NextFunction) {
    if (storeFailure(redis, err)) {
      logger.warn('request failed: Redis unreachable', { path: req.path });
      if (!res.headersSent) sendStoreDown(req, res);
      return;
    }
    const clientError = requestProblem(err);
    if (clientError) {
      logger.info('request refused', { path: req.path, status: clientError.status, problem: clientError.text });
      if (!res.headersSent) render(res, alertPage('Request refused', clientError.text), { status: clientError.status });
      return;
    }
    logger.error('request failed', { path: req.path, err });
    if (res.headersSent) return;
    render(res, alertPage('Something went wrong', 'Something went wrong. Try again.'), { status: 500 });
  });
  const providerCallback = provider.callback();
  app.use(function oidcProvider(req: Request, res: Response) {
    forwardedAsResolved(req);
    void providerCallback(providerRequest(req), res);
  });
  return { app, provider, metrics, sweepKeyExpiries: () => management.sweepKeyExpiries() };
}

/** A body the parsers refused (too large, malformed, wrong charset): the client's problem, said plainly. */
function requestProblem(err: unknown): { status: number; text: string } | null {
  const e = err as { status?: unknown; type?: unknown };
  if (typeof e?.status !== 'number' || e.status < 400 || e.status > 499) return null;
  if (e.type === 'entity.too.large') return { status: 413, text: 'The form is too large. Nothing was changed.' };
  if (e.type === 'entity.parse.failed') return { status: 400, text: 'The form could not be read. Nothing was changed.' };
  return { status: e.status, text: 'The request could not be processed. Nothing was changed.' };
}
