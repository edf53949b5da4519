/**
 * `svc clients` (docs/management.md "Client governance"; docs/cli.md "Managing a project"): a
 * workspace's client policy and the clients waiting for the owner's approval, over the management
 * API's typed client. Changing the policy and approving need a recent second factor of a person
 * who has one.
 */
import type { Command } from './command.ts';
import { callerOf } from './command.ts';
import { CliError, EXIT } from './errors.ts';
import { answer, api, workspaceOf, type Caller, type Options } from './manage-common.ts';
import type { Io } from './run.ts';
import { columns, statusStyle } from './table.ts';

const MODES = ['open', 'allowlist', 'approval'] as const;
const KINDS = ['client_id', 'host', 'name'] as const;
type Rule = { kind: (typeof KINDS)[number]; value: string };
type Policy = { mode: (typeof MODES)[number]; allow: Rule[]; deny: Rule[] };

const said = (rules: readonly Rule[]) => (rules.length ? rules.map((r) => `${r.kind} ${r.value}`).join(', ') : '(none)');
const lines = (p: Policy) => [`Mode:  ${p.mode}`, `Allow: ${said(p.allow)}`, `Deny:  ${said(p.deny)}`];

/** The rule named on the command line: `host claude.ai`. */
function ruleOf(args: string[], verb: string): Rule {
  const [kind, ...rest] = args;
  const value = rest.join(' ');
  if (!kind || !(KINDS as readonly string[]).includes(kind) || !value)
    throw new CliError(
      `Give a rule: svc clients ${verb} client_id|host|name <value>, e.g. svc clients ${verb} host claude.ai.`,
      EXIT.usage,
    );
  return { kind: kind as Rule['kind'], value };
}

/** The policy with one change, as the whole policy is sent. */
function changed(current: Policy, verb: string, args: string[]): Policy {
  const p: Policy = { mode: current.mode, allow: current.allow, deny: current.deny };
  const same = (a: Rule, b: Rule) => a.kind === b.kind && a.value === b.value;
  if (verb === 'mode') {
    const mode = args[0];
    if (!mode || !(MODES as readonly string[]).includes(mode))
      throw new CliError(`Give a mode: svc clients mode ${MODES.join('|')}.`, EXIT.usage);
    return { ...p, mode: mode as Policy['mode'] };
  }
  const rule = ruleOf(args, verb);
  const without = { allow: p.allow.filter((r) => !same(r, rule)), deny: p.deny.filter((r) => !same(r, rule)) };
  if (verb === 'allow') return { ...p, ...without, allow: [...without.allow, rule] };
  if (verb === 'block') return { ...p, ...without, deny: [...without.deny, rule] };
  return { ...p, ...without };
}

async function clientsCommand(io: Io, c: Caller, v: Options, args: string[]): Promise<void> {
  const [sub = 'policy', ...rest] = args;
  const workspace = await workspaceOf(c, v);
  const params = { workspace };
  switch (sub) {
    case 'policy': {
      const p = await answer(api(c).clientPolicy({ params }), 'clients policy');
      return io.result(p, [`Workspace ${workspace}`, ...lines(p)]);
    }
    case 'mode':
    case 'allow':
    case 'block':
    case 'unlist': {
      const before = await answer(api(c).clientPolicy({ params }), `clients ${sub}`);
      const body = changed(before, sub, rest);
      const p = await answer(api(c).setClientPolicy({ params, body }), `clients ${sub}`);
      return io.result(p, [`Workspace ${workspace}: policy saved.`, ...lines(p)]);
    }
    case 'approvals': {
      const list = await answer(api(c).listClientApprovals({ params }), 'clients approvals');
      const rows = list.client_approvals.map((a) => ({ ...a, name: a.name ?? '' }));
      return io.result(
        list,
        rows.length
          ? [
              ...columns(rows, [
                ['client_id', 'CLIENT', { free: true }],
                ['name', 'NAME', { free: true }],
                ['state', 'STATE', { style: statusStyle }],
                ['requested_by', 'FIRST ASKED BY', { free: true }],
                ['requested_at', 'ASKED', { time: true }],
              ]),
              '',
              'Approve with: svc clients approve <client>; deny with: svc clients deny <client>.',
            ]
          : [`No client waited for approval in ${workspace}.`],
      );
    }
    case 'approve':
    case 'deny': {
      const client = rest[0];
      if (!client) throw new CliError(`Which client? svc clients ${sub} <client id> (ids: svc clients approvals).`, EXIT.usage);
      const call = sub === 'approve' ? api(c).approveClient : api(c).denyClient;
      const r = await answer(call({ params: { workspace, client } }), `clients ${sub}`);
      return io.result(r, [
        sub === 'approve'
          ? `Approved ${client}: the workspace's people may connect it.`
          : `Denied ${client}: it is refused, and its grants on ${workspace} have ended.`,
      ]);
    }
    default:
      throw new CliError(
        'Use svc clients policy|mode <m>|allow|block|unlist <kind> <value>|approvals|approve <client>|deny <client>.',
        EXIT.usage,
      );
  }
}

export const CLIENTS_COMMAND: Command = {
  summary: "a workspace's client policy (which OAuth clients may connect) and the clients waiting for approval",
  usage:
    'svc clients policy|mode open|allowlist|approval|allow <kind> <value>|block <kind> <value>|unlist <kind> <value>|approvals|approve <client>|deny <client> [--workspace W] [--json]',
  details: `  --workspace W       the workspace (default: the current key's)
  kind                client_id (exactly), host (a metadata document client's host; *.example.com for subdomains) or name
allow and block add a rule to the allow or the deny list (the deny list wins); unlist removes it.
approval mode holds a client no owner decided on: it waits until svc clients approve.
Changing the policy and approving ask for a recent second factor of a person who has one.`,
  options: { workspace: { type: 'string' } },
  subcommands: ['policy', 'mode', 'allow', 'block', 'unlist', 'approvals', 'approve', 'deny'],
  async run(io, v, positionals) {
    await clientsCommand(io, await callerOf(io, v), v, positionals);
  },
};
