/**
 * The wire adapters of a workspace's trusted identity providers (docs/auth-service.md
 * "Enterprise-managed authorization"): the issuers in the wire's names and times, and `jwks_uri`
 * taken as the layer's `jwksUri`. Removing one answers as the layer does.
 */
import type { TrustedIssuer } from '@svc/accounts';
import { iso, type WireAdapters } from './wire.ts';

const answer = (t: TrustedIssuer) => ({ id: t.id, issuer: t.issuer, jwks: t.jwks, jwks_uri: t.jwksUri, added_at: iso(t.addedAt) });

export const TRUSTED_ISSUER_ADAPTERS = {
  listTrustedIssuers: async (m, a, { params }) => ({
    body: { trusted_issuers: (await m.listTrustedIssuers(a, params.workspace)).map(answer) },
  }),
  addTrustedIssuer: async (m, a, { params, body }) => {
    const input = {
      issuer: body.issuer,
      ...(body.jwks === undefined ? {} : { jwks: body.jwks }),
      ...(body.jwks_uri === undefined ? {} : { jwksUri: body.jwks_uri }),
    };
    return { status: 201, body: answer(await m.addTrustedIssuer(a, params.workspace, input)) };
  },
} satisfies WireAdapters;
