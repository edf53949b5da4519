/** `svc usage`, `svc service-accounts` and `svc audit` (docs/cli.md "Managing a project"): a workspace's own. */
import { KEY_DEFAULTS } from '@svc/management/contract';
import { CliError, EXIT } from './errors.ts';
import type { Io } from './run.ts';
import { serviceAccountKeysCommand } from './service-account-keys.ts';
import { answer, api, given, levelOption, need, shownOnce, workspaceOf, type Caller, type Options } from './manage-common.ts';
import { columns, statusStyle } from './table.ts';

export async function usageCommand(io: Io, c: Caller, v: Options): Promise<void> {
  const ws = await workspaceOf(c, v);
  const days = given(v, 'days');
  const u = await answer(api(c).usage({ params: { workspace: ws }, query: days === undefined ? {} : { days } }), 'usage');
  io.result({ workspace: ws, ...u }, [
    `Workspace ${ws}`,
    `This minute: ${u.minute.used} of ${u.minute.limit} requests`,
    `This month:  ${u.month.used}${u.month.quota === null ? ' queries (no quota)' : ` of ${u.month.quota} queries`}`,
    '',
    ...(u.perKey.length
      ? columns(u.perKey, [
          ['name', 'KEY OR PERSON', { free: true }],
          ['prefix', 'KEY'],
          ['project', 'PROJECT'],
          ['count', 'REQUESTS THIS MONTH'],
        ])
      : ['No requests this month.']),
    ...(u.perTool.length
      ? [
          '',
          ...columns(u.perTool, [
            ['tool', 'TOOL'],
            ['count', 'CALLS THIS MONTH'],
          ]),
        ]
      : []),
    '',
    ...columns(
      u.daily.days.map((day, i) => ({ day, requests: u.daily.requests[i] ?? 0 })),
      [
        ['day', 'DAY (UTC)'],
        ['requests', 'REQUESTS'],
      ],
    ),
  ]);
}

export async function serviceAccountsCommand(io: Io, c: Caller, v: Options, args: string[]): Promise<void> {
  const [sub, id] = args;
  const ws = await workspaceOf(c, v);
  const which = (verb: string): { workspace: string; id: string } => {
    if (!id) throw new CliError(`Which service account? svc service-accounts ${verb} <id> (ids: svc service-accounts list).`, EXIT.usage);
    return { workspace: ws, id };
  };
  const verb = sub ?? 'list';
  switch (verb) {
    case 'list': {
      const listed = await answer(api(c).listServiceAccounts({ params: { workspace: ws } }), 'service-accounts list');
      const rows = listed.service_accounts.map((r) => ({
        ...r,
        state: r.revoked ? 'revoked' : 'active',
        grants:
          Object.entries(r.grants)
            .map(([p, l]) => `${p}:${l}`)
            .join(' ') || '-',
      }));
      return io.result(
        { service_accounts: rows },
        rows.length
          ? columns(rows, [
              ['id', 'ID'],
              ['name', 'NAME', { free: true }],
              ['key_prefix', 'KEY'],
              ['grants', 'GRANTS', { free: true }],
              ['state', 'STATUS', { style: statusStyle }],
            ])
          : ['No service accounts. Create one: svc service-accounts create --name ci'],
      );
    }
    case 'create': {
      const body = { name: need(v, 'name', '--name ci') };
      const r = await answer(api(c).createServiceAccount({ params: { workspace: ws }, body }), 'service-accounts create');
      return shownOnce(
        io,
        r,
        `Service account "${r.name}" (${r.id}) created. Grant it a project: svc service-accounts grant ${r.id} --project <slug> --level ${KEY_DEFAULTS.level}`,
      );
    }
    case 'grant': {
      const params = which('grant');
      const body = { project: need(v, 'project', '--project my-project'), level: levelOption(v, 'level', KEY_DEFAULTS.level) };
      await answer(api(c).grantServiceAccount({ params, body }), 'service-accounts grant');
      return io.result({ id, ...body }, [`Service account ${String(id)} now has ${body.level} on ${body.project}.`]);
    }
    case 'rotate': {
      const body = { overlap: given(v, 'overlap') ?? KEY_DEFAULTS.overlap };
      const r = await answer(api(c).rotateServiceAccount({ params: which('rotate'), body }), 'service-accounts rotate');
      return shownOnce(
        io,
        r,
        r.old_key_until
          ? `New key for "${r.name}"; the old one works until ${r.old_key_until}. Deploy the new one before then.`
          : `New key for "${r.name}"; the old one stopped working now.`,
      );
    }
    case 'revoke':
      await answer(api(c).revokeServiceAccount({ params: which('revoke') }), 'service-accounts revoke');
      return io.result({ id, revoked: true }, [`Service account ${String(id)} revoked; its key stops within a second.`]);
    case 'keys':
    case 'set-keys':
    case 'remove-keys':
      return serviceAccountKeysCommand(io, api(c), answer, verb, which(verb), v);
    default:
      throw new CliError('Use svc service-accounts list|create|grant|rotate|revoke|keys|set-keys|remove-keys.', EXIT.usage);
  }
}

/** The filter options of an audit listing, as they are typed again for its next page. */
const filterOptions = (q: Record<string, string | undefined>) =>
  (['action', 'actor', 'from', 'to'] as const).map((k) => (q[k] === undefined ? '' : ` --${k} ${JSON.stringify(q[k])}`)).join('');

export async function auditCommand(io: Io, c: Caller, v: Options): Promise<void> {
  const ws = await workspaceOf(c, v);
  const query = {
    action: given(v, 'action'),
    actor: given(v, 'actor'),
    from: given(v, 'from'),
    to: given(v, 'to'),
    limit: given(v, 'limit'),
    cursor: given(v, 'cursor'),
  };
  const page = await answer(api(c).audit({ params: { workspace: ws }, query }), 'audit');
  io.result(page, [
    ...(page.entries.length
      ? columns(page.entries, [
          ['at', 'TIME', { time: true }],
          ['actor', 'ACTOR', { free: true }],
          ['action', 'ACTION'],
          ['target', 'TARGET', { free: true }],
        ])
      : ['Nothing recorded.']),
    ...(page.next ? ['', `Older entries: svc audit --workspace ${ws}${filterOptions(query)} --cursor ${page.next}`] : []),
  ]);
}
