/**
 * The management layer as the gateway builds it (docs/management.md): the same store and sealing
 * key for single sign-on's settings as the auth-service's pages, and the webhook endpoints' store,
 * which the gateway manages but never delivers from.
 */
import type { Accounts, Redis } from '@svc/accounts';
import type { Config } from '@svc/config';
import type { Logger } from '@svc/logger';
import { createMailer, type Mailer } from '@svc/mail';
import { createManagement } from '@svc/management';
import { createScimDirectory, createScimTokens, createSsoStore, defaultResolveTxt, ssoSettings, type ResolveTxt } from '@svc/sso';
import type { Upstreams } from '@svc/upstreams';
import { WebhookStore } from '@svc/webhooks';

/** What the gateway's management layer reads. */
export interface GatewayManagementDeps {
  config: Config;
  redis: Redis;
  accounts: Accounts;
  logger: Logger;
  mailer?: Mailer;
  resolveTxt?: ResolveTxt;
  now: () => number;
  /** A project's upstream MCP servers (docs/upstream-servers.md). */
  upstreams?: Upstreams;
}

/** The management layer the gateway's management routes and its access-request tool call. */
export function gatewayManagement(deps: GatewayManagementDeps) {
  const { config, now } = deps;
  return createManagement(deps.accounts, {
    redis: deps.redis,
    now,
    mailer: deps.mailer ?? createMailer(config.email),
    authUrl: config.authUrl,
    baseUrl: config.baseUrl,
    onNoticeError: (err) => deps.logger.warn('email notice not sent', { err }),
    // The same store and sealing key (COOKIE_KEYS, read by both services through @svc/config) as
    // the auth-service's pages; no discovery check here: the gateway makes no outbound requests
    // (docs/management.md "Single sign-on").
    sso: ssoSettings({
      accounts: deps.accounts,
      store: createSsoStore(deps.redis, config.cookieKeys),
      resolveTxt: deps.resolveTxt ?? defaultResolveTxt,
      now,
      authUrl: config.authUrl,
    }),
    // The gateway manages endpoints but never delivers: the worker runs in the auth-service (docs/webhooks.md).
    webhooks: new WebhookStore(deps.redis, { pepper: config.keyPepper, previousPepper: config.previousKeyPepper }, now),
    ...(deps.upstreams ? { upstreams: deps.upstreams } : {}),
    // The tokens the auth-service's SCIM endpoint checks (docs/auth-service.md "SCIM provisioning").
    scim: { tokens: createScimTokens(deps.redis, config.keyPepper), directory: createScimDirectory(deps.redis) },
  });
}
