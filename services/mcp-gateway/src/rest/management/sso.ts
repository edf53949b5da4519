/**
 * The wire adapters of a workspace's single sign-on settings (docs/management.md "Single
 * sign-on"): the settings and claims as the API shows them (the record to publish, never the
 * secret); claiming answers 201 for a new claim. Releasing answers as the layer does.
 */
import type { DomainClaim, SsoView } from '@svc/sso';
import { certificateSummary, proofName, proofValue } from '@svc/sso';
import { iso, type WireAdapters } from './wire.ts';

/** A claim as the API shows it: the record to publish rather than the bare token. */
const claimOut = (c: DomainClaim) => ({
  domain: c.domain,
  record: { name: proofName(c.domain), value: proofValue(c.token) },
  verifiedAt: iso(c.verifiedAt),
});

/** The settings as the API shows them: never the client secret (the store does not read it here). */
const viewOut = (v: SsoView) => ({
  provider: v.settings
    ? {
        kind: v.settings.kind,
        issuer: v.settings.issuer,
        clientId: v.settings.clientId,
        saml: v.settings.saml
          ? { ...v.settings.saml, certificates: v.settings.saml.certificates.map(certificateSummary), serviceProvider: v.serviceProvider }
          : null,
        updatedAt: iso(v.settings.updatedAt),
      }
    : null,
  policy: {
    defaultRole: v.settings?.defaultRole ?? 'VIEWER',
    required: v.settings?.required ?? false,
    groupRoles: v.settings?.groupRoles ?? [],
  },
  domains: v.claims.map(claimOut),
});

export const SSO_ADAPTERS = {
  ssoSettings: async (m, a, { params }) => ({ body: viewOut(await m.ssoSettings(a, params.workspace)) }),
  configureSsoProvider: async (m, a, { params, body }) => ({
    body: viewOut(await m.configureSsoProvider(a, params.workspace, body)),
  }),
  setSsoPolicy: async (m, a, { params, body }) => ({
    body: viewOut(await m.setSsoPolicy(a, params.workspace, body)),
  }),
  claimSsoDomain: async (m, a, { params, body }) => {
    const before = (await m.ssoSettings(a, params.workspace)).claims.length;
    const claim = await m.claimSsoDomain(a, params.workspace, body.domain);
    const after = (await m.ssoSettings(a, params.workspace)).claims.length;
    return { status: after > before ? 201 : 200, body: claimOut(claim) };
  },
  verifySsoDomain: async (m, a, { params }) => ({ body: claimOut(await m.verifySsoDomain(a, params.workspace, params.domain)) }),
} satisfies WireAdapters;
