/**
 * The oidc-provider instance with our overrides (each pinned by a test in
 * services/auth-service/test/provider-overrides.test.ts):
 * - access and refresh token values are our checksummed `svc_at_` / `svc_rt_` credentials: the
 *   token models' generateTokenId (public API per the maintainer, oidc-provider #423) is wrapped,
 *   so the value, the jti and the adapter id stay one and the same;
 * - post-steps on the device authorization and token endpoints (see their files).
 */
import type { Accounts, Redis } from '@svc/accounts';
import type { Config } from '@svc/config';
import { generateCredential } from '@svc/credentials';
import type { Logger } from '@svc/logger';
import Provider, { type JWKS, type KoaContextWithOIDC } from 'oidc-provider';
import { deviceAuthorizationResponse } from '../oauth/device-authorization-response.ts';
import { tokenResponse } from '../oauth/token-response.ts';
import { createDevicePages } from '../pages/device-pages.ts';
import type { Metrics } from '../http/metrics.ts';
import { buildConfiguration, type ConfigurationDeps } from './configuration.ts';
import { createRedisAdapter } from './redis-adapter.ts';

export interface ProviderDeps {
  config: Config;
  redis: Redis;
  accounts: Accounts;
  logger: Logger;
  metrics: Metrics;
  jwks: JWKS;
  webUserOf: (ctx: KoaContextWithOIDC) => Promise<string | null>;
  /** See ConfigurationDeps.fetch (tests only). */
  fetch?: ConfigurationDeps['fetch'];
}

export function createProvider(deps: ProviderDeps): Provider {
  const { config, logger } = deps;
  const adapter = createRedisAdapter({ redis: deps.redis });
  const configuration = buildConfiguration({
    config,
    accounts: deps.accounts,
    jwks: deps.jwks,
    adapter,
    devicePages: createDevicePages({ redis: deps.redis }),
    webUserOf: deps.webUserOf,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  const provider = new Provider(config.authUrl, configuration);
  provider.proxy = config.trustProxy;

  // The typings omit generateTokenId; the models define it (lib/models/access_token.js, base_model.js).
  type WithId = { generateTokenId(this: unknown): string };
  const at = provider.AccessToken.prototype as unknown as WithId;
  const generateAt = at.generateTokenId;
  at.generateTokenId = function svcAccessTokenId(this: unknown) {
    generateAt.call(this); // keeps the library's side effect: it resolves the token format
    return generateCredential('access_token');
  };
  (provider.RefreshToken.prototype as unknown as WithId).generateTokenId = () => generateCredential('refresh_token');

  provider.use(deviceAuthorizationResponse({ redis: deps.redis, authUrl: config.authUrl }));
  provider.use(tokenResponse({ accounts: deps.accounts, baseUrl: config.baseUrl, logger }));

  provider.on('access_token.saved', () => deps.metrics.tokens.inc({ kind: 'access_token' }));
  provider.on('refresh_token.saved', () => deps.metrics.tokens.inc({ kind: 'refresh_token' }));
  provider.on('device_code.saved', () => deps.metrics.tokens.inc({ kind: 'device_code' }));
  provider.on('server_error', (_ctx, err) => logger.error('oidc-provider server error', { err }));
  provider.on('grant.error', (_ctx, err) => {
    const error = (err as { error?: string }).error;
    // RFC 8628 §3.5: a waiting device polls every few seconds; those answers are routine, not news.
    const routine = error === 'authorization_pending' || error === 'slow_down';
    logger.log(routine ? 'debug' : 'info', 'grant refused', { error, detail: err.message });
  });
  provider.on('grant.revoked', (_ctx, grantId) => logger.info('grant revoked', { grantId }));
  return provider;
}
