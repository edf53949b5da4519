/**
 * A workspace owner's single sign-on settings for the tests, through the one settings service of
 * `@svc/sso` (the dashboard's, the API's and svc-admin's): a domain claimed and proven by a TXT
 * record the test publishes in its own resolver, and the provider saved (unchecked, as the API saves
 * it; the sign-in reads its discovery).
 */
import { createSsoStore, proofName, proofValue, ssoSettings, type SsoStore } from '@svc/sso';
import type { Stack } from '../support/stack.ts';

export interface SsoOwner {
  /** Claims `domain` for `workspace`; proves it too unless `prove` is false (a claim has no effect until proven). */
  claimDomain(workspace: string, domain: string, o?: { prove?: boolean }): Promise<void>;
  configureProvider(workspace: string, p: { issuer: string; clientId: string; clientSecret: string }): Promise<void>;
  store: SsoStore;
}

export function ssoOwner(stack: Stack, owner: { id: string; email: string }): SsoOwner {
  const dns = new Map<string, string[][]>();
  const store = createSsoStore(stack.client, stack.config.cookieKeys);
  const settings = ssoSettings({
    accounts: stack.accounts,
    store,
    resolveTxt: async (name) => dns.get(name) ?? [],
    now: Date.now,
  });
  const actor = { userId: owner.id, email: owner.email, source: '127.0.0.1' };
  return {
    store,
    async claimDomain(workspace, domain, { prove = true } = {}) {
      const claim = await settings.claimDomain(actor, workspace, domain);
      if (!prove) return;
      dns.set(proofName(domain), [[proofValue(claim.token)]]);
      await settings.verifyDomain(actor, workspace, domain);
    },
    async configureProvider(workspace, p) {
      await settings.configureProvider(actor, workspace, { issuer: p.issuer, clientId: p.clientId, secret: p.clientSecret });
    },
  };
}
