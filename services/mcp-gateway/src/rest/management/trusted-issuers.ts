/** The routes of a workspace's trusted identity providers (docs/auth-service.md "Enterprise-managed authorization"). */
import type { TrustedIssuer } from '@svc/accounts';
import { handle, iso, type ManagementRoute } from './handle.ts';

const answer = (t: TrustedIssuer) => ({ id: t.id, issuer: t.issuer, jwks: t.jwks, jwks_uri: t.jwksUri, added_at: iso(t.addedAt) });

export const TRUSTED_ISSUER_ROUTES: readonly ManagementRoute[] = [
  handle('listTrustedIssuers', async (m, a, { params }) => ({
    body: { trusted_issuers: (await m.listTrustedIssuers(a, params.workspace)).map(answer) },
  })),
  handle('addTrustedIssuer', async (m, a, { params, body }) => {
    const input = {
      issuer: body.issuer,
      ...(body.jwks === undefined ? {} : { jwks: body.jwks }),
      ...(body.jwks_uri === undefined ? {} : { jwksUri: body.jwks_uri }),
    };
    return { status: 201, body: answer(await m.addTrustedIssuer(a, params.workspace, input)) };
  }),
  handle('removeTrustedIssuer', async (m, a, { params }) => {
    await m.removeTrustedIssuer(a, params.workspace, params.id);
    return { body: { id: params.id, removed: true } };
  }),
];
