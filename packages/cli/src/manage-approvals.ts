/**
 * `svc approvals` (docs/approvals.md "Deciding"): a project's calls held for an admin's approval,
 * listed with the arguments they will run with, approved (of the call's hash) or denied, over the
 * management API's typed client. Approving needs a recent second factor of a person who has one:
 * the refusal names the dashboard's Approvals page, which gives it.
 */
import type { Command } from './command.ts';
import { callerOf } from './command.ts';
import { projectOf } from './default-project.ts';
import { CliError, EXIT } from './errors.ts';
import { answer, api, given, type Caller, type Options } from './manage-common.ts';
import type { Io } from './run.ts';
import { columns, statusStyle } from './table.ts';

/** The arguments of a held call on one line, as they will run. */
const argsLine = (args: Record<string, unknown>) => JSON.stringify(args);

async function approvalsCommand(io: Io, c: Caller, v: Options, args: string[]): Promise<void> {
  const [sub = 'list', id] = args;
  if (sub !== 'list' && sub !== 'approve' && sub !== 'deny')
    throw new CliError('Use svc approvals list|approve <id>|deny <id> [--project <slug>].', EXIT.usage);
  const slug = await projectOf(io.env, c, v);
  const list = await answer(api(c).listApprovals({ params: { project: slug } }), `approvals ${sub}`);
  if (sub === 'list') {
    const rows = list.approvals.map((a) => ({ ...a, call: `${a.tool} ${argsLine(a.arguments)}` }));
    const pending = rows.filter((r) => r.status === 'pending');
    return io.result(
      list,
      rows.length
        ? [
            ...columns(rows, [
              ['id', 'ID'],
              ['status', 'STATUS', { style: statusStyle }],
              ['caller', 'CALLER', { free: true }],
              ['created_at', 'ASKED', { time: true }],
              ['call', 'CALL', { free: true }],
            ]),
            '',
            pending.length
              ? `Approve with: svc approvals approve <id> --project ${slug}; deny with: svc approvals deny <id>.`
              : 'Nothing waits.',
          ]
        : [`No call waits for an approval on ${slug}.`],
    );
  }
  if (!id)
    throw new CliError(`Which call? Give its id: svc approvals ${sub} <id> --project ${slug} (ids: svc approvals list).`, EXIT.usage);
  const held = list.approvals.find((a) => a.id === id);
  if (!held) throw new CliError(`There is no approval ${id} on ${slug}.`, EXIT.usage, `Its calls: svc approvals list --project ${slug}`);
  const call = `${held.tool} ${argsLine(held.arguments)} by ${held.caller}`;
  if (sub === 'deny') {
    const r = await answer(api(c).denyApproval({ params: { project: slug, id }, body: {} }), 'approvals deny');
    return io.result(r, [`Denied ${id}: ${call}. It will not run.`]);
  }
  // --call-hash pins the call you reviewed (svc approvals list --json): another call is refused.
  const callHash = given(v, 'call-hash') ?? held.call_hash;
  const r = await answer(api(c).approveApproval({ params: { project: slug, id }, body: { call_hash: callHash } }), 'approvals approve');
  return io.result(r, [`Approved ${id}: ${call}. It runs once, as its caller, when they next ask for its status.`]);
}

export const APPROVALS_COMMAND: Command = {
  summary: "a project's calls held for an admin's approval: list them with their arguments, approve, deny",
  usage: 'svc approvals list|approve <id>|deny <id> [--project <slug>] [--call-hash H] [--json]',
  details: `  --project SLUG      the project (default: the one "svc use" chose, or your only one)
  --call-hash H       approve: the call_hash you reviewed (svc approvals list --json); another call is refused
A call runs once, with the arguments listed, as the caller who made it, when they next ask for its
status; a denial, or an hour without a decision, is final (docs/approvals.md).
approve asks for a recent second factor of a person who has one: the dashboard's Approvals page gives it.`,
  options: { project: { type: 'string' }, 'call-hash': { type: 'string' } },
  subcommands: ['list', 'approve', 'deny'],
  async run(io, v, positionals) {
    await approvalsCommand(io, await callerOf(io, v), v, positionals);
  },
};
