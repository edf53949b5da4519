/**
 * svc-admin's single sign-on commands (docs/auth-service.md "Single sign-on", docs/contract.md
 * "Operator interface"): the operator acts for the workspace's owner through the same settings
 * service as the dashboard and the management API, so each change is judged the same way and
 * recorded in the workspace's audit log (actor `svc-admin`). The client secret is read from
 * standard input (`--secret-stdin`), never from the command line, and never printed.
 */
import { readFileSync } from 'node:fs';
import type { Accounts } from '@svc/accounts';
import { AccountError } from '@svc/accounts';
import {
  certificateSummary,
  proofName,
  proofValue,
  SsoError,
  type DomainClaim,
  type SettingsActor,
  type SsoSettingsService,
  type SsoView,
} from '@svc/sso';
import { req, UsageError, type Options } from './command-kit.ts';

/** What an SSO command is given besides its options. */
export interface SsoCommandDeps {
  accounts: Accounts;
  sso: SsoSettingsService;
  /** The first line of standard input, when --secret-stdin was given; null otherwise. */
  secret(): Promise<string | null>;
}

export type SsoCommand = (deps: SsoCommandDeps, o: Options) => Promise<Record<string, unknown>>;

/** The workspace's owner, as whom the operator acts. */
async function ownerActor(accounts: Accounts, workspace: string): Promise<SettingsActor> {
  const ws = await accounts.workspaces.get(workspace);
  if (!ws) throw new AccountError('not_found', `no workspace ${workspace}`);
  return { userId: ws.owner, email: 'svc-admin', source: 'svc-admin' };
}

/** A refusal of the settings service as svc-admin reports it: a usage error naming the problem. */
const refusal = (err: unknown): never => {
  if (err instanceof SsoError) throw new UsageError(err.field ? `--${flagOf(err.field)}: ${err.message}` : err.message);
  throw err;
};

const FLAGS: Record<string, string> = {
  clientId: 'client-id',
  defaultRole: 'default-role',
  groupRoles: 'groups',
  metadataXml: 'metadata-file',
  entityId: 'entity-id',
  ssoUrl: 'sso-url',
  certificate: 'certificate-file',
  emailAttribute: 'email-attribute',
  groupsAttribute: 'groups-attribute',
};
const flagOf = (field: string) => FLAGS[field] ?? field;

/** The text of the file an option names ('' when the option is absent). */
function fileOf(o: Options, name: string): string {
  const file = o[name];
  if (file === undefined) return '';
  try {
    return readFileSync(String(file), 'utf8');
  } catch {
    throw new UsageError(`--${name}: cannot read ${String(file)}`);
  }
}

const text = (o: Options, name: string) => (typeof o[name] === 'string' ? o[name] : '');

const claimOut = (c: DomainClaim) => ({
  domain: c.domain,
  record: { name: proofName(c.domain), value: proofValue(c.token) },
  verifiedAt: c.verifiedAt === null ? null : new Date(c.verifiedAt).toISOString(),
});

const samlOut = (v: SsoView) =>
  v.settings?.saml
    ? {
        saml: {
          ...v.settings.saml,
          certificates: v.settings.saml.certificates.map(certificateSummary),
          serviceProvider: v.serviceProvider,
        },
      }
    : {};

const viewOut = (v: SsoView) => ({
  provider: v.settings ? { kind: v.settings.kind, issuer: v.settings.issuer, clientId: v.settings.clientId, ...samlOut(v) } : null,
  policy: {
    defaultRole: v.settings?.defaultRole ?? 'VIEWER',
    required: v.settings?.required ?? false,
    groupRoles: v.settings?.groupRoles ?? [],
  },
  domains: v.claims.map(claimOut),
});

/** `--groups eng=ADMIN,ops=VIEWER` as rows; the settings service judges names and roles. */
function groupRoles(o: Options): { group: string; role: string }[] {
  const v = o['groups'];
  if (typeof v !== 'string' || v.trim() === '') return [];
  return v.split(',').map((pair) => {
    const at = pair.lastIndexOf('=');
    if (at < 1) throw new UsageError(`--groups takes group=ROLE pairs separated by commas (got "${pair.slice(0, 100)}")`);
    return { group: pair.slice(0, at), role: pair.slice(at + 1).toUpperCase() };
  });
}

function onOff(o: Options, name: string): boolean {
  const v = o[name];
  if (v === undefined) return false;
  if (v === 'on' || v === 'off') return v === 'on';
  throw new UsageError(`--${name} must be on or off`);
}

export const SSO_COMMANDS: Record<string, SsoCommand> = {
  'sso show': async ({ accounts, sso }, o) => {
    const ws = req(o, 'workspace');
    return viewOut(await sso.view(await ownerActor(accounts, ws), ws).catch(refusal));
  },
  'sso provider': async ({ accounts, sso, secret }, o) => {
    const ws = req(o, 'workspace');
    const actor = await ownerActor(accounts, ws);
    const input = { issuer: req(o, 'issuer'), clientId: req(o, 'client-id'), secret: (await secret()) ?? '' };
    await sso.configureProvider(actor, ws, input).catch(refusal);
    return viewOut(await sso.view(actor, ws));
  },
  'sso saml': async ({ accounts, sso }, o) => {
    const ws = req(o, 'workspace');
    const actor = await ownerActor(accounts, ws);
    const saml = {
      metadataXml: fileOf(o, 'metadata-file'),
      entityId: text(o, 'entity-id'),
      ssoUrl: text(o, 'sso-url'),
      certificate: fileOf(o, 'certificate-file'),
      wantResponseSigned: onOff(o, 'want-response-signed'),
      emailAttribute: text(o, 'email-attribute'),
      groupsAttribute: text(o, 'groups-attribute'),
    };
    await sso.configureProvider(actor, ws, { kind: 'saml', saml }).catch(refusal);
    return viewOut(await sso.view(actor, ws));
  },
  'sso policy': async ({ accounts, sso }, o) => {
    const ws = req(o, 'workspace');
    const actor = await ownerActor(accounts, ws);
    const input = { defaultRole: req(o, 'default-role').toUpperCase(), required: onOff(o, 'required'), groupRoles: groupRoles(o) };
    await sso.setPolicy(actor, ws, input).catch(refusal);
    return viewOut(await sso.view(actor, ws));
  },
  'sso domain claim': async ({ accounts, sso }, o) => {
    const ws = req(o, 'workspace');
    return claimOut(await sso.claimDomain(await ownerActor(accounts, ws), ws, req(o, 'domain')).catch(refusal));
  },
  'sso domain verify': async ({ accounts, sso }, o) => {
    const ws = req(o, 'workspace');
    const actor = await ownerActor(accounts, ws);
    await sso.verifyDomain(actor, ws, req(o, 'domain')).catch(refusal);
    const claim = (await sso.view(actor, ws)).claims.find((c) => c.domain === req(o, 'domain').trim().toLowerCase());
    return claim ? claimOut(claim) : { domain: req(o, 'domain') };
  },
  'sso domain release': async ({ accounts, sso }, o) => {
    const ws = req(o, 'workspace');
    await sso.releaseDomain(await ownerActor(accounts, ws), ws, req(o, 'domain')).catch(refusal);
    return { domain: req(o, 'domain').trim().toLowerCase(), released: true };
  },
};
