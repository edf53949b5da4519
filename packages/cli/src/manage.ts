/**
 * The management commands of `svc` (docs/cli.md "Managing a project"): keys, access requests,
 * members, usage and the audit log, over the management API (docs/management.md "REST") with the
 * current key, through the typed client of its contract: the requests and answers are the
 * declared ones, and the defaults are the management layer's. Each takes `--json`; errors keep
 * the server's words and say what to run next.
 */
import { KEY_DEFAULTS } from '@svc/management/contract';
import { CliError, EXIT } from './errors.ts';
import type { Io } from './run.ts';
import { answer, api, levelOption, need, type Caller, type Options } from './manage-common.ts';
import { columns, statusStyle } from './table.ts';
import { projectOf } from './default-project.ts';
import { moreLine, readPages } from './manage-pages.ts';

export async function requestsCommand(io: Io, c: Caller, v: Options, args: string[]): Promise<void> {
  const [sub, id] = args;
  if (sub === 'mine') {
    const { items: requests, next } = await readPages(v, async (query) => {
      const r = await answer(api(c).myAccessRequests({ query }), 'requests mine');
      return { items: r.requests, next: r.next_cursor };
    });
    return io.result(
      { requests, next_cursor: next },
      requests.length
        ? [
            ...columns(requests, [
              ['project', 'PROJECT'],
              ['level', 'ASKED'],
              ['status', 'STATUS', { style: statusStyle }],
              ['granted_level', 'GRANTED'],
              ['created_at', 'ASKED AT', { time: true }],
              ['decided_at', 'DECIDED AT', { time: true }],
            ]),
            ...moreLine(next, 'svc requests mine'),
          ]
        : ['You have asked for no access yet. Ask with svc request-access --project P --level L --reason R.'],
    );
  }
  if (sub !== 'list' && sub !== undefined && sub !== 'approve' && sub !== 'deny')
    throw new CliError('Use svc requests list|approve|deny --project <slug>, or svc requests mine.', EXIT.usage);
  const slug = await projectOf(io.env, c, v);
  if (sub === 'list' || sub === undefined) {
    const { items: requests, next } = await readPages(v, async (query) => {
      const r = await answer(api(c).listAccessRequests({ params: { project: slug }, query }), 'requests list');
      return { items: r.requests, next: r.next_cursor };
    });
    const pending = requests.filter((r) => r.status === 'pending');
    return io.result(
      { requests, next_cursor: next },
      requests.length
        ? [
            ...columns(requests, [
              ['id', 'ID'],
              ['requester', 'REQUESTER', { free: true }],
              ['level', 'LEVEL'],
              ['status', 'STATUS', { style: statusStyle }],
              ['granted_level', 'GRANTED'],
              ['decided_by', 'DECIDED BY', { free: true }],
              ['reason', 'REASON', { free: true }],
            ]),
            '',
            pending.length ? `Approve with: svc requests approve <id> --project ${slug} [--level VIEWER|EDITOR|ADMIN]` : 'Nothing pending.',
            ...moreLine(next, `svc requests list --project ${slug}`),
          ]
        : ['No access requests.'],
    );
  }
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
  const slug = await projectOf(io.env, c, v);
  if (sub === 'list' || sub === undefined) {
    const { members, invitations } = await answer(api(c).listMembers({ params: { project: slug } }), 'members list');
    const pending = invitations.length
      ? [
          '',
          'Pending invitations (svc members cancel <invitation-id>):',
          ...columns(invitations, [
            ['email', 'EMAIL'],
            ['role', 'ROLE'],
            ['expiresAt', 'LINK WORKS UNTIL', { time: true }],
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
