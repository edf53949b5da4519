/**
 * Signing out at the company's provider too (OpenID Connect RP-Initiated Logout 1.0): when a
 * person signs out of svc from a session their workspace's OpenID provider started, the page
 * offers the provider's `end_session_endpoint` with svc's `client_id` (§2: the parameter that
 * names the RP when no ID token is kept), so the provider ends its own session as well and the next
 * sign-in asks again. A link the person follows, not a redirect: signing out of svc must not fail
 * because the provider is slow or down. SAML providers and providers that publish no
 * end_session_endpoint get no link (docs/auth-service.md "Logout from the company's provider").
 */
import * as oc from 'openid-client';
import type { Logger } from '@svc/logger';
import type { SsoStore } from '@svc/sso';
import type { Discover } from './provider-client.ts';

export function providerSignOut(deps: { store: SsoStore; discover: Discover; logger: Logger }) {
  return async function providerSignOutUrl(workspace: string): Promise<{ url: string; issuer: string } | null> {
    try {
      const settings = await deps.store.settings(workspace);
      const secret = settings && settings.kind !== 'saml' ? await deps.store.secret(workspace) : null;
      if (!settings || !secret) return null;
      const config = await deps.discover(settings.issuer, settings.clientId, secret);
      if (!config.serverMetadata().end_session_endpoint) return null;
      return { url: oc.buildEndSessionUrl(config, { client_id: settings.clientId }).href, issuer: settings.issuer };
    } catch (err) {
      // The person is signed out of svc whatever the provider says; the page then offers no link.
      deps.logger.info('provider sign-out unavailable', { workspace, detail: err instanceof Error ? err.message : 'unknown' });
      return null;
    }
  };
}
