/**
 * The management commands of `svc` (docs/cli.md "Managing a project"): keys, access requests,
 * members, usage and the audit log, over the management API (docs/management.md "REST") with the
 * current key, through the typed client of its contract: the requests and answers are the
 * declared ones, and the defaults are the management layer's. Each takes `--json`; errors keep
 * the server's words and say what to run next.
 */
import { KEY_DEFAULTS, LEVELS, managementClient, type CallResult, type OperationDeclaration } from '@svc/management/contract';
import type { KeyLevel } from '@svc/policy';
import { CliError, EXIT } from './errors.ts';
import { refusal, requestJson, type JsonResponse } from './http.ts';
import type { Io } from './run.ts';
import { serviceAccountKeysCommand } from './service-account-keys.ts';

export interface Caller {
  cred: { key: string };
  base: string;
}

type Options = Record<string, unknown>;

const need = (v: Options, name: string, example: string): string => {
  const value = v[name];
  if (typeof value !== 'string' || value === '') throw new CliError(`Give --${name}, e.g. ${example}.`, EXIT.usage);
  return value;
};

/** An option's text when it was given. */
const given = (v: Options, name: string): string | undefined => (typeof v[name] === 'string' ? v[name] : undefined);

/** A level option (--level, --role): one of the levels, or `fallback` when not given. */
function levelOption(v: Options, name: string, fallback?: KeyLevel): KeyLevel {
  const value = given(v, name) ?? fallback;
  const level = LEVELS.find((l) => l === value);
  if (!level) throw new CliError(`Give --${name} ${LEVELS.join('|')}.`, EXIT.usage);
  return level;
}

/** Left-aligned columns under a header, the way `svc projects` prints them. */
function columns<T extends object>(rows: readonly T[], cols: [keyof T & string, string][]): string[] {
  const cell = (r: T, k: keyof T) => (r[k] === null || r[k] === undefined ? '-' : String(r[k]));
  const widths = cols.map(([k, h]) => Math.max(h.length, ...rows.map((r) => cell(r, k).length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(cols.map(([, h]) => h)), ...rows.map((r) => line(cols.map(([k]) => cell(r, k))))];
}

/** The management API's client for the current key. */
export const api = (c: Caller) =>
  managementClient((r) =>
    requestJson(`${c.base}${r.path}`, {
      method: r.method,
      headers: { 'X-API-Key': c.cred.key },
      ...(r.body === undefined ? {} : { body: r.body }),
    }),
  );

/** The answer of a call that succeeded; a refusal becomes the CliError of `what`. */
export async function answer<O extends OperationDeclaration, A>(call: Promise<CallResult<O, JsonResponse, A>>, what: string): Promise<A> {
  const r = await call;
  if (!r.ok) throw refusal(r.response, what);
  return r.body;
}

const project = (v: Options) => need(v, 'project', '--project my-project');

export async function keysCommand(io: Io, c: Caller, v: Options, args: string[]): Promise<void> {
  const [sub, id] = args;
  const slug = project(v);
  switch (sub ?? '') {
    case 'list': {
      const query = { status: given(v, 'status'), q: given(v, 'search') };
      const { keys } = await answer(api(c).listKeys({ params: { project: slug }, query }), 'keys list');
      // A rolled key says what replaced it rather than a second "expiring".
      const rows = keys.map((k) => ({
        ...k,
        shown: k.replaced_by && k.status !== 'revoked' && k.status !== 'expired' ? `replaced by ${k.replaced_by.id}` : k.status,
        ips: k.allowed_ips.join(' ') || null,
      }));
      return io.result(
        { keys },
        rows.length
          ? columns(rows, [
              ['id', 'ID'],
              ['name', 'NAME'],
              ['level', 'LEVEL'],
              ['prefix', 'KEY'],
              ['expires_at', 'EXPIRES'],
              ['last_used_at', 'LAST USED'],
              ['rate_limit', 'PER MIN'],
              ['ips', 'ALLOWED IPS'],
              ['shown', 'STATUS'],
            ])
          : [query.status || query.q ? 'No keys match.' : 'No keys (revoked ones are listed with --status revoked or all).'],
      );
    }
    case 'disable':
    case 'enable': {
      if (!id) throw new CliError(`Which key? Give its id: svc keys ${sub} <id> --project <slug> (ids: svc keys list).`, EXIT.usage);
      const params = { project: slug, id };
      const k = await answer(
        sub === 'disable' ? api(c).disableKey({ params, body: {} }) : api(c).enableKey({ params, body: {} }),
        `keys ${sub}`,
      );
      return io.result(k, [
        sub === 'disable'
          ? `Key ${id} disabled; gateways refuse it within a second. Enable it again: svc keys enable ${id} --project ${slug}`
          : `Key ${id} enabled; gateways accept it within a second.`,
      ]);
    }
    case 'note': {
      const text = args.slice(2).join(' ');
      if (!id)
        throw new CliError(
          'Give the key and its note: svc keys note <id> "<text>" --project <slug> (an empty text clears it).',
          EXIT.usage,
        );
      const k = await answer(api(c).setKeyNote({ params: { project: slug, id }, body: { note: text } }), 'keys note');
      return io.result(k, [k.note ? `Key ${id}'s note saved.` : `Key ${id}'s note cleared.`]);
    }
    case 'allow-ips': {
      const entries = args.slice(2);
      if (!id || entries.length === 0)
        throw new CliError(
          'Give the key and its addresses: svc keys allow-ips <id> <address|CIDR>... --project <slug>, or anywhere to lift the list.',
          EXIT.usage,
        );
      const allowed = entries.length === 1 && entries[0] === 'anywhere' ? [] : entries.flatMap((e) => e.split(','));
      const k = await answer(api(c).setKeyAllowedIps({ params: { project: slug, id }, body: { allowed_ips: allowed } }), 'keys allow-ips');
      return io.result(k, [
        k.allowed_ips.length
          ? `Key ${id} is now accepted only from ${k.allowed_ips.join(', ')}.`
          : `Key ${id} is accepted from any address.`,
      ]);
    }
    case 'create': {
      const rateLimit = given(v, 'rate-limit');
      const body = {
        name: need(v, 'name', '--name ci'),
        level: levelOption(v, 'level', KEY_DEFAULTS.level),
        expires: given(v, 'expires') ?? KEY_DEFAULTS.expires,
        ...(rateLimit === undefined ? {} : { rate_limit: rateLimit }),
        ...(given(v, 'note') === undefined ? {} : { note: given(v, 'note') }),
        ...(Array.isArray(v['allow-ip']) ? { allowed_ips: (v['allow-ip'] as string[]).flatMap((e) => e.split(',')) } : {}),
      };
      const k = await answer(api(c).createKey({ params: { project: slug }, body }), 'keys create');
      return shownOnce(io, k, `Key "${k.name}" (${k.level}) created; it expires ${k.expires_at ?? 'never'}.`);
    }
    case 'revoke': {
      if (!id) throw new CliError('Which key? Give its id: svc keys revoke <id> --project <slug> (ids: svc keys list).', EXIT.usage);
      await answer(api(c).revokeKey({ params: { project: slug, id } }), 'keys revoke');
      return io.result({ id, revoked: true }, [`Key ${id} revoked; gateways refuse it within a second.`]);
    }
    case 'roll': {
      if (!id) throw new CliError('Which key? Give its id: svc keys roll <id> --project <slug> (ids: svc keys list).', EXIT.usage);
      const body = { overlap: given(v, 'overlap') ?? KEY_DEFAULTS.overlap };
      const k = await answer(api(c).rollKey({ params: { project: slug, id }, body }), 'keys roll');
      return shownOnce(io, k, `Key rolled; the old one works until ${String(k.old_key_until)}. Deploy the new one before then.`);
    }
    case 'limit': {
      const value = args[2];
      if (!id || !value)
        throw new CliError(
          'Give the key and its limit: svc keys limit <id> <requests-per-minute|none> --project <slug> (ids: svc keys list).',
          EXIT.usage,
        );
      const rateLimit = value === 'none' ? null : value;
      const k = await answer(api(c).setKeyLimit({ params: { project: slug, id }, body: { rate_limit: rateLimit } }), 'keys limit');
      return io.result(k, [
        k.rate_limit === null
          ? `Key ${id} now has the plan's limit alone.`
          : `Key ${id} may now make ${k.rate_limit} requests per minute (within the plan's limit).`,
      ]);
    }
    default:
      throw new CliError(
        'Use svc keys list|create|revoke|roll|limit|disable|enable|note|allow-ips --project <slug>.',
        EXIT.usage,
        'Run "svc keys --help".',
      );
  }
}

/** A new key: the summary on stderr, the key alone on stdout (or the JSON), and the warning. */
function shownOnce(io: Io, k: { key: string }, summary: string): void {
  if (io.json) return io.secret(JSON.stringify(k, null, 2));
  io.err(summary);
  io.secret(k.key);
  io.err('Copy it now: it is not shown again. Keep it in an environment variable such as SVC_API_KEY, never in code.');
}

export async function requestsCommand(io: Io, c: Caller, v: Options, args: string[]): Promise<void> {
  const [sub, id] = args;
  if (sub === 'mine') {
    const { requests } = await answer(api(c).myAccessRequests({}), 'requests mine');
    return io.result(
      { requests },
      requests.length
        ? columns(requests, [
            ['project', 'PROJECT'],
            ['level', 'ASKED'],
            ['status', 'STATUS'],
            ['granted_level', 'GRANTED'],
            ['created_at', 'ASKED AT'],
            ['decided_at', 'DECIDED AT'],
          ])
        : ['You have asked for no access yet. Ask with svc request-access --project P --level L --reason R.'],
    );
  }
  const slug = project(v);
  if (sub === 'list' || sub === undefined) {
    const { requests } = await answer(api(c).listAccessRequests({ params: { project: slug } }), 'requests list');
    const pending = requests.filter((r) => r.status === 'pending');
    return io.result(
      { requests },
      requests.length
        ? [
            ...columns(requests, [
              ['id', 'ID'],
              ['requester', 'REQUESTER'],
              ['level', 'LEVEL'],
              ['status', 'STATUS'],
              ['granted_level', 'GRANTED'],
              ['decided_by', 'DECIDED BY'],
              ['reason', 'REASON'],
            ]),
            '',
            pending.length ? `Approve with: svc requests approve <id> --project ${slug} [--level VIEWER|EDITOR|ADMIN]` : 'Nothing pending.',
          ]
        : ['No access requests.'],
    );
  }
  if (sub !== 'approve' && sub !== 'deny')
    throw new CliError('Use svc requests list|approve|deny --project <slug>, or svc requests mine.', EXIT.usage);
  if (!id)
    throw new CliError(`Which request? Give its id: svc requests ${sub} <id> --project <slug> (ids: svc requests list).`, EXIT.usage);
  if (sub === 'deny') {
    const r = await answer(api(c).denyAccessRequest({ params: { project: slug, id }, body: {} }), 'requests deny');
    return io.result(r, [`Request ${id} denied.`]);
  }
  const body = { level: levelOption(v, 'level', KEY_DEFAULTS.level) };
  const r = await answer(api(c).approveAccessRequest({ params: { project: slug, id }, body }), 'requests approve');
  io.result(r, [`Request ${id} approved at ${r.level}.`]);
}

export async function membersCommand(io: Io, c: Caller, v: Options, args: string[]): Promise<void> {
  const [sub, who] = args;
  const slug = project(v);
  if (sub === 'list' || sub === undefined) {
    const { members, invitations } = await answer(api(c).listMembers({ params: { project: slug } }), 'members list');
    const pending = invitations.length
      ? [
          '',
          'Pending invitations (svc members cancel <invitation-id>):',
          ...columns(invitations, [
            ['email', 'EMAIL'],
            ['role', 'ROLE'],
            ['expiresAt', 'LINK WORKS UNTIL'],
            ['id', 'INVITATION ID'],
          ]),
        ]
      : [];
    return io.result({ members, invitations }, [
      ...columns(members, [
        ['email', 'EMAIL'],
        ['role', 'ROLE'],
        ['userId', 'USER ID'],
      ]),
      ...pending,
    ]);
  }
  if (sub === 'add' || sub === 'set') {
    if (!who) throw new CliError(`Whom? svc members ${sub} <email> --role VIEWER|EDITOR|ADMIN --project <slug>.`, EXIT.usage);
    need(v, 'role', '--role EDITOR');
    const body = { email: who, role: levelOption(v, 'role') };
    const r = await answer(api(c).putMember({ params: { project: slug }, body }), `members ${sub}`);
    // docs/management.md "Invitations": an address without a confirmed account is invited, not added.
    if (r.invited)
      return io.result(r, [
        `${r.email} has no confirmed svc account yet: an invitation to be ${r.role} was mailed to it (the link works for 7 days).`,
      ]);
    return io.result(r, [`${r.email} is ${r.role} on the project.`]);
  }
  if (sub === 'cancel') {
    if (!who) throw new CliError('Which? svc members cancel <invitation-id> --project <slug> (ids: svc members list).', EXIT.usage);
    await answer(api(c).cancelInvitation({ params: { project: slug, id: who } }), 'members cancel');
    return io.result({ invitation: who, cancelled: true }, [`Invitation ${who} cancelled: its link no longer works.`]);
  }
  if (sub === 'remove') {
    if (!who) throw new CliError('Whom? svc members remove <user-id> --project <slug> (ids: svc members list).', EXIT.usage);
    await answer(api(c).removeMember({ params: { project: slug, user: who } }), 'members remove');
    return io.result({ user: who, removed: true }, [`Removed ${who} from the project.`]);
  }
  throw new CliError('Use svc members list|add|set|remove|cancel --project <slug>.', EXIT.usage);
}

/** The workspace to read: --workspace, else the current key's own (GET /api/v1/me). */
async function workspaceOf(c: Caller, v: Options): Promise<string> {
  const named = given(v, 'workspace');
  if (named) return named;
  // GET /api/v1/me is an account route (docs/contract.md "Hosts and endpoints"), not a management operation.
  const res = await requestJson(`${c.base}/api/v1/me`, { headers: { 'X-API-Key': c.cred.key } });
  if (res.status >= 300) throw refusal(res, 'whoami');
  return String(res.body['workspace']);
}

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
          ['name', 'KEY OR PERSON'],
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
              ['name', 'NAME'],
              ['key_prefix', 'KEY'],
              ['grants', 'GRANTS'],
              ['state', 'STATUS'],
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
          ['at', 'TIME'],
          ['actor', 'ACTOR'],
          ['action', 'ACTION'],
          ['target', 'TARGET'],
        ])
      : ['Nothing recorded.']),
    ...(page.next ? ['', `Older entries: svc audit --workspace ${ws}${filterOptions(query)} --cursor ${page.next}`] : []),
  ]);
}
