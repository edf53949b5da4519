/**
 * svc-admin trusted-issuer add|list|remove: a workspace's trusted identity providers
 * (docs/auth-service.md "Enterprise-managed authorization"), set by the operator; each change
 * audited in the workspace's log as `svc-admin`.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AccountError, type Accounts, type AuditAction, type ServiceAccountKeys, type TrustedIssuer } from '@svc/accounts';
import type { Command, Options } from './command-kit.ts';

const need = (o: Options, name: string): string => {
  const v = o[name];
  if (typeof v !== 'string' || v === '') throw new AccountError('invalid', `--${name} is required`);
  return v;
};

function keysOf(o: Options): ServiceAccountKeys {
  const file = o['jwks-file'];
  const uri = o['jwks-uri'];
  if ((typeof file === 'string') === (typeof uri === 'string'))
    throw new AccountError('invalid', 'give one of --jwks-file F or --jwks-uri URL');
  if (typeof uri === 'string') return { jwksUri: uri };
  try {
    return { jwks: JSON.parse(readFileSync(String(file), 'utf8')) as never };
  } catch {
    throw new AccountError('invalid', `cannot read a JWK Set (JSON) from ${String(file)}`);
  }
}

const shown = (t: TrustedIssuer) => ({
  id: t.id,
  issuer: t.issuer,
  jwks: t.jwks,
  jwksUri: t.jwksUri,
  addedAt: new Date(t.addedAt).toISOString(),
});

async function audited(a: Accounts, workspace: string, action: AuditAction, t: TrustedIssuer): Promise<void> {
  await a.audit.record({
    workspace,
    actor: 'svc-admin',
    action,
    target: `trusted_issuer:${t.id} (${t.issuer})`,
    source: 'svc-admin',
    requestId: randomUUID(),
  });
}

async function workspaceOf(a: Accounts, o: Options): Promise<string> {
  const ws = need(o, 'workspace');
  if (!(await a.workspaces.get(ws))) throw new AccountError('not_found', `no workspace ${ws}`);
  return ws;
}

export const TRUSTED_ISSUER_COMMANDS: Record<string, Command> = {
  'trusted-issuer add': async (a, o) => {
    const ws = await workspaceOf(a, o);
    const t = await a.trustedIssuers.add(ws, need(o, 'issuer'), keysOf(o));
    await audited(a, ws, 'trusted_issuer.added', t);
    return shown(t);
  },
  'trusted-issuer list': async (a, o) => ({ trustedIssuers: (await a.trustedIssuers.list(await workspaceOf(a, o))).map(shown) }),
  'trusted-issuer remove': async (a, o) => {
    const ws = await workspaceOf(a, o);
    const t = await a.trustedIssuers.remove(ws, need(o, 'id'));
    if (!t) throw new AccountError('not_found', `workspace ${ws} trusts no issuer with id ${String(o['id'])}`);
    await audited(a, ws, 'trusted_issuer.removed', t);
    return { id: t.id, removed: true };
  },
};
