/**
 * The oidc-provider instance with our overrides (each pinned by a test in
 * services/auth-service/test/provider-overrides.test.ts):
 * - access and refresh token values are our checksummed `svc_at_` / `svc_rt_` credentials: the
 *   token models' generateTokenId (public API per the maintainer, oidc-provider #423) is wrapped,
 *   so the value, the jti and the adapter id stay one and the same;
 * - post-steps on the device authorization and token endpoints (see their files);
 * - a session first created while an error is rendered is saved rather than failing (below);
 * - with an https issuer every request counts as secure (below).
 */
import type { Accounts, Redis } from '@svc/accounts';
import type { Config } from '@svc/config';
import { generateCredential } from '@svc/credentials';
import type { Logger } from '@svc/logger';
import Provider, { type JWKS, type KoaContextWithOIDC } from 'oidc-provider';
import { createCimdFetch } from '@svc/bounds/guarded-fetch.ts';
import { createSsoStore } from '@svc/sso';
import { deviceAuthorizationResponse } from '../oauth/device-authorization-response.ts';
import { JWT_BEARER_GRANT } from '../oauth/id-jag.ts';
import { ID_JAG_GRANT_PARAMETERS, idJagGrant } from '../oauth/id-jag-grant.ts';
import { createIssuerKeys, ISSUER_JWKS_MAX_BYTES, type FetchLike } from '../oauth/id-jag-keys.ts';
import { keepRefreshPair } from '../oauth/refresh-replay.ts';
import { readServiceAccountClient } from '../oauth/grant-read-ahead.ts';
import { settleWrites } from '../store/request-storage.ts';
import { TOKEN_EXCHANGE_GRANT } from '../oauth/token-exchange.ts';
import { TOKEN_EXCHANGE_PARAMETERS, tokenExchangeGrant } from '../oauth/token-exchange-grant.ts';
import { tokenResponse } from '../oauth/token-response.ts';
import { keepUnverifiedClientErrorsOnSvc } from '../oauth/unverified-client-errors.ts';
import { createDevicePages } from './device-pages.ts';
import type { Metrics } from '../http/metrics.ts';
import { providerErrors, SERVER_ERROR } from '../http/provider-errors.ts';
import { TTL } from '../oauth/lifetimes.ts';
import { buildConfiguration, type ConfigurationDeps } from './configuration.ts';
import { createRedisAdapter } from './redis-adapter.ts';
import type { Tracer } from '@opentelemetry/api';
import { tracedAdapter } from './traced-adapter.ts';

export interface ProviderDeps {
  config: Config;
  redis: Redis;
  accounts: Accounts;
  logger: Logger;
  metrics: Metrics;
  jwks: JWKS;
  webUserOf: (ctx: KoaContextWithOIDC) => Promise<string | null>;
  throttle: ConfigurationDeps['throttle'];
  /** The clock of the refresh replay window (tests move it). */
  now?: () => number;
  /** See ConfigurationDeps.fetch (tests only). */
  fetch?: ConfigurationDeps['fetch'];
  /** Tracing on: each adapter call is a span (docs/operations.md "Traces"). */
  tracer?: Tracer | null;
}

export function createProvider(deps: ProviderDeps): Provider {
  const { config, logger } = deps;
  const adapter = tracedAdapter(
    createRedisAdapter({
      redis: deps.redis,
      grants: deps.accounts.oauthGrants,
      serviceAccountClient: (id) => readServiceAccountClient(deps.accounts, id),
    }),
    deps.tracer ?? null,
  );
  const configuration = buildConfiguration({
    config,
    accounts: deps.accounts,
    jwks: deps.jwks,
    adapter,
    devicePages: createDevicePages(),
    webUserOf: deps.webUserOf,
    logger,
    throttle: deps.throttle,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  const provider = new Provider(config.authUrl, configuration);
  // The app hands the provider its own resolved X-Forwarded-* (http/forwarded-headers.ts), one
  // address each, so reading them is safe whatever TRUST_PROXY says.
  provider.proxy = true;
  provider.maxIpsCount = 1;

  // The typings omit generateTokenId; the models define it (lib/models/access_token.js, base_model.js).
  type WithId = { generateTokenId(this: unknown): string };
  const at = provider.AccessToken.prototype as unknown as WithId;
  const generateAt = at.generateTokenId;
  at.generateTokenId = function svcAccessTokenId(this: unknown) {
    generateAt.call(this); // keeps the library's side effect: it resolves the token format
    return generateCredential('access_token');
  };
  (provider.RefreshToken.prototype as unknown as WithId).generateTokenId = () => generateCredential('refresh_token');
  // A service account's client-credentials token is an `svc_at_` access token too (docs/auth-service.md "Client credentials").
  const cc = provider.ClientCredentials.prototype as unknown as WithId;
  const generateCc = cc.generateTokenId;
  cc.generateTokenId = function svcClientCredentialsId(this: unknown) {
    generateCc.call(this);
    return generateCredential('access_token');
  };

  // oidc-provider's error handler on the device pages (lib/shared/error_handler.js) gives a new,
  // never-saved session an xsrf secret, and ensureSessionSave (lib/helpers/initialize_app.js) then
  // calls persist(), which throws for a session never saved: `GET /device/<x>` or `POST /device`
  // without an earlier visit ended in Koa's plain-text 500. Such a session is saved, with the
  // session lifetime, exactly as a first visit to /device saves one.
  type Persisted = { exp?: unknown; persist(): Promise<unknown>; save(ttl: number): Promise<unknown> };
  const session = provider.Session.prototype as unknown as Persisted;
  const persist = session.persist;
  session.persist = function svcPersist(this: Persisted) {
    return typeof this.exp === 'number' ? persist.call(this) : this.save(TTL.Session);
  };

  // With an https issuer every request reached the pod through the TLS proxy (docs/operations.md).
  // Koa decides ctx.secure from X-Forwarded-Proto; a request without it (a proxy that drops it, a
  // probe) would get the provider's session cookies without Secure. The protocol is the issuer's.
  if (config.authUrl.startsWith('https:')) {
    Object.defineProperty(provider.request, 'protocol', { configurable: true, get: () => 'https' });
  }

  keepUnverifiedClientErrorsOnSvc(provider);

  // RFC 7523 §2.1 with an ID-JAG as the assertion (docs/auth-service.md "Enterprise-managed authorization").
  provider.registerGrantType(
    JWT_BEARER_GRANT,
    idJagGrant({
      accounts: deps.accounts,
      redis: deps.redis,
      issuer: config.authUrl,
      baseUrl: config.baseUrl,
      issuerKeys: createIssuerKeys((deps.fetch ?? createCimdFetch({ maxBytes: ISSUER_JWKS_MAX_BYTES })) as FetchLike),
      sso: createSsoStore(deps.redis, config.cookieKeys),
    }),
    ID_JAG_GRANT_PARAMETERS,
  );
  // RFC 8693 delegation to a sub-agent (docs/auth-service.md "Delegation (token exchange)"); the
  // registration adds it to the metadata's grant_types_supported.
  provider.registerGrantType(
    TOKEN_EXCHANGE_GRANT,
    tokenExchangeGrant({ accounts: deps.accounts, baseUrl: config.baseUrl }),
    TOKEN_EXCHANGE_PARAMETERS,
  );

  // First, so outermost: it sees whatever the post-steps below throw too.
  provider.use(providerErrors({ redis: deps.redis, logger }));
  provider.use(deviceAuthorizationResponse({ redis: deps.redis, authUrl: config.authUrl }));
  // Outside tokenResponse, so the pair kept for a repeated refresh is the response as sent.
  provider.use(keepRefreshPair({ redis: deps.redis, ...(deps.now ? { now: deps.now } : {}) }));
  // Inside it, so a pair is kept only once the tokens it holds landed (store/request-storage.ts).
  provider.use(settleWrites());
  provider.use(tokenResponse({ accounts: deps.accounts, baseUrl: config.baseUrl, logger }));

  provider.on('access_token.saved', () => deps.metrics.tokens.inc({ kind: 'access_token' }));
  provider.on('refresh_token.saved', () => deps.metrics.tokens.inc({ kind: 'refresh_token' }));
  provider.on('device_code.saved', () => deps.metrics.tokens.inc({ kind: 'device_code' }));
  provider.on('server_error', (ctx, err) => {
    (ctx as { [SERVER_ERROR]?: unknown })[SERVER_ERROR] = err;
    logger.error('oidc-provider server error', { path: ctx.path, err });
  });
  provider.on('grant.error', (_ctx, err) => {
    const error = (err as { error?: string }).error;
    // RFC 8628 §3.5: a waiting device polls every few seconds; those answers are routine, not news.
    const routine = error === 'authorization_pending' || error === 'slow_down';
    logger.log(routine ? 'debug' : 'info', 'grant refused', { error, detail: err.message });
  });
  provider.on('grant.revoked', (_ctx, grantId) => logger.info('grant revoked', { grantId }));
  return provider;
}
