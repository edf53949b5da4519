/**
 * The management commands of `svc` (docs/cli.md "Managing a project"): keys, access requests,
 * members, usage and the audit log, over the management API (docs/management.md "REST") with the
 * current key. Each takes `--json`; errors keep the server's words and say what to run next.
 */
import { CliError, EXIT } from './errors.ts';
import { refusal, requestJson, type JsonResponse } from './http.ts';
import type { Io } from './run.ts';

export interface Caller {
  cred: { key: string };
  base: string;
}

type Row = Record<string, unknown>;

const need = (v: Record<string, unknown>, name: string, example: string): string => {
  const value = v[name];
  if (typeof value !== 'string' || value === '') throw new CliError(`Give --${name}, e.g. ${example}.`, EXIT.usage);
  return value;
};

/** Left-aligned columns under a header, the way `svc projects` prints them. */
function columns(rows: Row[], cols: [string, string][]): string[] {
  const cell = (r: Row, k: string) => (r[k] === null || r[k] === undefined ? '-' : String(r[k]));
  const widths = cols.map(([k, h]) => Math.max(h.length, ...rows.map((r) => cell(r, k).length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(cols.map(([, h]) => h)), ...rows.map((r) => line(cols.map(([k]) => cell(r, k))))];
}

async function call(c: Caller, method: string, path: string, what: string, body?: unknown): Promise<JsonResponse> {
  const res = await requestJson(`${c.base}${path}`, {
    method,
    headers: { 'X-API-Key': c.cred.key },
    ...(body === undefined ? {} : { body }),
  });
  if (res.status >= 300) throw refusal(res, what);
  return res;
}

const project = (v: Record<string, unknown>) => encodeURIComponent(need(v, 'project', '--project my-project'));

export async function keysCommand(io: Io, c: Caller, v: Record<string, unknown>, args: string[]): Promise<void> {
  const [sub, id] = args;
  const base = `/api/v1/projects/${project(v)}/keys`;
  switch (sub ?? '') {
    case 'list': {
      const keys = (await call(c, 'GET', base, 'keys list')).body['keys'] as Row[];
      return io.result(
        { keys },
        keys.length
          ? columns(keys, [
              ['id', 'ID'],
              ['name', 'NAME'],
              ['level', 'LEVEL'],
              ['prefix', 'KEY'],
              ['expires_at', 'EXPIRES'],
              ['last_used_at', 'LAST USED'],
              ['rate_limit', 'PER MIN'],
              ['status', 'STATUS'],
            ])
          : ['No keys.'],
      );
    }
    case 'create': {
      const body = {
        name: need(v, 'name', '--name ci'),
        level: (v['level'] as string | undefined) ?? 'VIEWER',
        expires: (v['expires'] as string | undefined) ?? '90d',
        ...(typeof v['rate-limit'] === 'string' ? { rate_limit: v['rate-limit'] } : {}),
      };
      const k = (await call(c, 'POST', base, 'keys create', body)).body;
      return shownOnce(
        io,
        k,
        `Key "${String(k['name'])}" (${String(k['level'])}) created; it expires ${String(k['expires_at'] ?? 'never')}.`,
      );
    }
    case 'revoke': {
      if (!id) throw new CliError('Which key? Give its id: svc keys revoke <id> --project <slug> (ids: svc keys list).', EXIT.usage);
      await call(c, 'DELETE', `${base}/${encodeURIComponent(id)}`, 'keys revoke');
      return io.result({ id, revoked: true }, [`Key ${id} revoked; gateways refuse it within a second.`]);
    }
    case 'roll': {
      if (!id) throw new CliError('Which key? Give its id: svc keys roll <id> --project <slug> (ids: svc keys list).', EXIT.usage);
      const k = (
        await call(c, 'POST', `${base}/${encodeURIComponent(id)}/roll`, 'keys roll', {
          overlap: (v['overlap'] as string | undefined) ?? '24h',
        })
      ).body;
      return shownOnce(io, k, `Key rolled; the old one works until ${String(k['old_key_until'])}. Deploy the new one before then.`);
    }
    case 'limit': {
      const value = args[2];
      if (!id || !value)
        throw new CliError(
          'Give the key and its limit: svc keys limit <id> <requests-per-minute|none> --project <slug> (ids: svc keys list).',
          EXIT.usage,
        );
      const rateLimit = value === 'none' ? null : value;
      const k = (await call(c, 'PATCH', `${base}/${encodeURIComponent(id)}`, 'keys limit', { rate_limit: rateLimit })).body;
      return io.result(k, [
        k['rate_limit'] === null
          ? `Key ${id} now has the plan's limit alone.`
          : `Key ${id} may now make ${String(k['rate_limit'])} requests per minute (within the plan's limit).`,
      ]);
    }
    default:
      throw new CliError('Use svc keys list|create|revoke|roll|limit --project <slug>.', EXIT.usage, 'Run "svc keys --help".');
  }
}

/** A new key: the summary on stderr, the key alone on stdout (or the JSON), and the warning. */
function shownOnce(io: Io, k: Row, summary: string): void {
  if (io.json) return io.secret(JSON.stringify(k, null, 2));
  io.err(summary);
  io.secret(String(k['key']));
  io.err('Copy it now: it is not shown again. Keep it in an environment variable such as SVC_API_KEY, never in code.');
}

export async function requestsCommand(io: Io, c: Caller, v: Record<string, unknown>, args: string[]): Promise<void> {
  const [sub, id] = args;
  if (sub === 'mine') {
    const requests = (await call(c, 'GET', '/api/v1/me/access-requests', 'requests mine')).body['requests'] as Row[];
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
        : ['You have asked for no access yet. Ask from an MCP client with svc_request_access.'],
    );
  }
  const base = `/api/v1/projects/${project(v)}/access-requests`;
  if (sub === 'list' || sub === undefined) {
    const requests = (await call(c, 'GET', base, 'requests list')).body['requests'] as Row[];
    const pending = requests.filter((r) => r['status'] === 'pending');
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
            pending.length
              ? `Approve with: svc requests approve <id> --project ${String(v['project'])} [--level VIEWER|EDITOR|ADMIN]`
              : 'Nothing pending.',
          ]
        : ['No access requests.'],
    );
  }
  if (sub !== 'approve' && sub !== 'deny')
    throw new CliError('Use svc requests list|approve|deny --project <slug>, or svc requests mine.', EXIT.usage);
  if (!id)
    throw new CliError(`Which request? Give its id: svc requests ${sub} <id> --project <slug> (ids: svc requests list).`, EXIT.usage);
  const r = (
    await call(
      c,
      'POST',
      `${base}/${encodeURIComponent(id)}/${sub}`,
      `requests ${sub}`,
      sub === 'approve' ? { level: (v['level'] as string | undefined) ?? 'VIEWER' } : {},
    )
  ).body;
  io.result(r, [sub === 'approve' ? `Request ${id} approved at ${String(r['level'])}.` : `Request ${id} denied.`]);
}

export async function membersCommand(io: Io, c: Caller, v: Record<string, unknown>, args: string[]): Promise<void> {
  const [sub, who] = args;
  const base = `/api/v1/projects/${project(v)}/members`;
  if (sub === 'list' || sub === undefined) {
    const body = (await call(c, 'GET', base, 'members list')).body;
    const members = body['members'] as Row[];
    const invitations = (body['invitations'] ?? []) as Row[];
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
    const r = (await call(c, 'POST', base, `members ${sub}`, { email: who, role: need(v, 'role', '--role EDITOR') })).body;
    // docs/management.md "Invitations": an address without a confirmed account is invited, not added.
    if (r['invited'] === true)
      return io.result(r, [
        `${String(r['email'])} has no confirmed svc account yet: an invitation to be ${String(r['role'])} was mailed to it (the link works for 7 days).`,
      ]);
    return io.result(r, [`${String(r['email'])} is ${String(r['role'])} on the project.`]);
  }
  if (sub === 'cancel') {
    if (!who) throw new CliError('Which? svc members cancel <invitation-id> --project <slug> (ids: svc members list).', EXIT.usage);
    await call(c, 'DELETE', `/api/v1/projects/${project(v)}/invitations/${encodeURIComponent(who)}`, 'members cancel');
    return io.result({ invitation: who, cancelled: true }, [`Invitation ${who} cancelled: its link no longer works.`]);
  }
  if (sub === 'remove') {
    if (!who) throw new CliError('Whom? svc members remove <user-id> --project <slug> (ids: svc members list).', EXIT.usage);
    await call(c, 'DELETE', `${base}/${encodeURIComponent(who)}`, 'members remove');
    return io.result({ user: who, removed: true }, [`Removed ${who} from the project.`]);
  }
  throw new CliError('Use svc members list|add|set|remove|cancel --project <slug>.', EXIT.usage);
}

/** The workspace to read: --workspace, else the current key's own (GET /api/v1/me). */
async function workspaceOf(c: Caller, v: Record<string, unknown>): Promise<string> {
  if (typeof v['workspace'] === 'string' && v['workspace']) return v['workspace'];
  return String((await call(c, 'GET', '/api/v1/me', 'whoami')).body['workspace']);
}

export async function usageCommand(io: Io, c: Caller, v: Record<string, unknown>): Promise<void> {
  const ws = await workspaceOf(c, v);
  const u = (await call(c, 'GET', `/api/v1/workspaces/${encodeURIComponent(ws)}/usage`, 'usage')).body as {
    minute: { used: number; limit: number };
    month: { used: number; quota: number | null };
    perKey: Row[];
    perTool: Row[];
  };
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
  ]);
}

export async function serviceAccountsCommand(io: Io, c: Caller, v: Record<string, unknown>, args: string[]): Promise<void> {
  const [sub, id] = args;
  const ws = await workspaceOf(c, v);
  const base = `/api/v1/workspaces/${encodeURIComponent(ws)}/service-accounts`;
  const which = (verb: string) => {
    if (!id) throw new CliError(`Which service account? svc service-accounts ${verb} <id> (ids: svc service-accounts list).`, EXIT.usage);
    return `${base}/${encodeURIComponent(id)}`;
  };
  switch (sub ?? 'list') {
    case 'list': {
      const rows = ((await call(c, 'GET', base, 'service-accounts list')).body['service_accounts'] as Row[]).map((r) => ({
        ...r,
        grants:
          Object.entries(r['grants'] as Record<string, string>)
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
            ])
          : ['No service accounts. Create one: svc service-accounts create --name ci'],
      );
    }
    case 'create': {
      const r = (await call(c, 'POST', base, 'service-accounts create', { name: need(v, 'name', '--name ci') })).body;
      return shownOnce(
        io,
        r,
        `Service account "${String(r['name'])}" (${String(r['id'])}) created. Grant it a project: svc service-accounts grant ${String(r['id'])} --project <slug> --level VIEWER`,
      );
    }
    case 'grant': {
      const body = { project: need(v, 'project', '--project my-project'), level: (v['level'] as string | undefined) ?? 'VIEWER' };
      await call(c, 'POST', `${which('grant')}/grants`, 'service-accounts grant', body);
      return io.result({ id, ...body }, [`Service account ${String(id)} now has ${body.level} on ${body.project}.`]);
    }
    case 'rotate': {
      const r = (await call(c, 'POST', `${which('rotate')}/rotate`, 'service-accounts rotate')).body;
      return shownOnce(io, r, `New key for "${String(r['name'])}"; the old one stopped working now.`);
    }
    case 'revoke':
      await call(c, 'DELETE', which('revoke'), 'service-accounts revoke');
      return io.result({ id, revoked: true }, [`Service account ${String(id)} revoked; its key stops within a second.`]);
    default:
      throw new CliError('Use svc service-accounts list|create|grant|rotate|revoke.', EXIT.usage);
  }
}

export async function auditCommand(io: Io, c: Caller, v: Record<string, unknown>): Promise<void> {
  const ws = await workspaceOf(c, v);
  const q = new URLSearchParams();
  if (typeof v['action'] === 'string') q.set('action', v['action']);
  if (typeof v['limit'] === 'string') q.set('limit', v['limit']);
  if (typeof v['cursor'] === 'string') q.set('cursor', v['cursor']);
  const page = (await call(c, 'GET', `/api/v1/workspaces/${encodeURIComponent(ws)}/audit?${q}`, 'audit')).body as {
    entries: Row[];
    next: string | null;
  };
  io.result(page, [
    ...(page.entries.length
      ? columns(page.entries, [
          ['at', 'TIME'],
          ['actor', 'ACTOR'],
          ['action', 'ACTION'],
          ['target', 'TARGET'],
        ])
      : ['Nothing recorded.']),
    ...(page.next ? ['', `Older entries: svc audit --workspace ${ws} --cursor ${page.next}`] : []),
  ]);
}
