/** The routes of a workspace's workload issuers and their rules (docs/workload-identity.md). */
import type { WorkloadIssuer } from '@svc/accounts';
import { handle, iso, type ManagementRoute } from './handle.ts';

const answer = (w: WorkloadIssuer) => ({
  id: w.id,
  kind: w.kind,
  issuer: w.issuer,
  audience: w.audience,
  jwks: w.jwks,
  jwks_uri: w.jwksUri,
  rules: w.rules.map((r) => ({ service_account: r.serviceAccount, claims: r.claims })),
  added_at: iso(w.addedAt),
});

export const WORKLOAD_ISSUER_ROUTES: readonly ManagementRoute[] = [
  handle('listWorkloadIssuers', async (m, a, { params }) => ({
    body: { workload_issuers: (await m.listWorkloadIssuers(a, params.workspace)).map(answer) },
  })),
  handle('addWorkloadIssuer', async (m, a, { params, body }) => {
    const input = {
      kind: body.kind,
      rules: body.rules.map((r) => ({ serviceAccount: r.service_account, claims: r.claims })),
      ...(body.issuer === undefined ? {} : { issuer: body.issuer }),
      ...(body.audience === undefined ? {} : { audience: body.audience }),
      ...(body.jwks === undefined ? {} : { jwks: body.jwks }),
      ...(body.jwks_uri === undefined ? {} : { jwksUri: body.jwks_uri }),
    };
    return { status: 201, body: answer(await m.addWorkloadIssuer(a, params.workspace, input)) };
  }),
  handle('removeWorkloadIssuer', async (m, a, { params }) => {
    await m.removeWorkloadIssuer(a, params.workspace, params.id);
    return { body: { id: params.id, removed: true } };
  }),
];
