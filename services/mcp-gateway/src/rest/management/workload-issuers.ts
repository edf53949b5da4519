/**
 * The wire adapters of a workspace's workload issuers and their rules (docs/workload-identity.md):
 * the issuers and rules in the wire's names and times, the body's names as the layer's. Removing
 * one answers as the layer does.
 */
import type { WorkloadIssuer } from '@svc/accounts';
import { iso, type WireAdapters } from './wire.ts';

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

export const WORKLOAD_ISSUER_ADAPTERS = {
  listWorkloadIssuers: async (m, a, { params }) => ({
    body: { workload_issuers: (await m.listWorkloadIssuers(a, params.workspace)).map(answer) },
  }),
  addWorkloadIssuer: async (m, a, { params, body }) => {
    const input = {
      kind: body.kind,
      rules: body.rules.map((r) => ({ serviceAccount: r.service_account, claims: r.claims })),
      ...(body.issuer === undefined ? {} : { issuer: body.issuer }),
      ...(body.audience === undefined ? {} : { audience: body.audience }),
      ...(body.jwks === undefined ? {} : { jwks: body.jwks }),
      ...(body.jwks_uri === undefined ? {} : { jwksUri: body.jwks_uri }),
    };
    return { status: 201, body: answer(await m.addWorkloadIssuer(a, params.workspace, input)) };
  },
} satisfies WireAdapters;
