/**
 * svc-admin workload-issuer add|list|remove: a workspace's workload issuers and their rules
 * (docs/workload-identity.md), through the management layer as the operator, so the same checks
 * and audit apply as over the API (audited as `service:svc-admin`).
 */
import { readFileSync } from 'node:fs';
import { AccountError, parseRuleSpecs, type WorkloadIssuer, type WorkloadIssuerKind } from '@svc/accounts';
import { operatorActor, req, UsageError, type Command, type Options } from './command-kit.ts';

function keysOf(o: Options): { jwks?: unknown; jwksUri?: string } {
  const file = o['jwks-file'];
  const uri = o['jwks-uri'];
  if (typeof file === 'string' && typeof uri === 'string') throw new UsageError('give one of --jwks-file F or --jwks-uri URL, not both');
  if (typeof uri === 'string') return { jwksUri: uri };
  if (typeof file !== 'string') return {};
  try {
    return { jwks: JSON.parse(readFileSync(file, 'utf8')) };
  } catch {
    throw new AccountError('invalid', `cannot read a JWK Set (JSON) from ${file}`);
  }
}

function rulesOf(o: Options) {
  try {
    return parseRuleSpecs(req(o, 'rule'));
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--rule: ${(err as Error).message}`);
  }
}

const shown = (w: WorkloadIssuer) => ({ ...w, addedAt: new Date(w.addedAt).toISOString() });

export const WORKLOAD_ISSUER_COMMANDS: Record<string, Command> = {
  'workload-issuer add': async (_a, o, io) => {
    const optional = (name: string) => (typeof o[name] === 'string' ? { [name]: o[name] as string } : {});
    const w = await io.management.addWorkloadIssuer(operatorActor(), req(o, 'workspace'), {
      kind: req(o, 'kind') as WorkloadIssuerKind,
      rules: rulesOf(o),
      ...optional('issuer'),
      ...optional('audience'),
      ...keysOf(o),
    });
    return shown(w);
  },
  'workload-issuer list': async (_a, o, io) => ({
    workloadIssuers: (await io.management.listWorkloadIssuers(operatorActor(), req(o, 'workspace'))).map(shown),
  }),
  'workload-issuer remove': async (_a, o, io) => {
    await io.management.removeWorkloadIssuer(operatorActor(), req(o, 'workspace'), req(o, 'id'));
    return { id: req(o, 'id'), removed: true };
  },
};
