/**
 * `svc upstreams` (docs/cli.md "Upstream MCP servers"): a project's upstream MCP servers
 * (docs/upstream-servers.md), its admins', over the management API's seven upstream operations.
 * A server is registered by its URL and svc reads its tools at once; each tool is listed as
 * `<upstream>__<tool>` under a policy row that `svc upstreams tool` edits. A credential for the
 * server is never taken from the command line (upstream-credential.ts) and never shown again.
 */
import { MANAGEMENT_OPERATIONS, type AnswerOf, type OperationOf } from '@svc/management/contract';
import { APPROVAL_RULES, isApprovalRule, isPlan, PLANS, type ApprovalRule } from '@svc/policy';
import type { Command } from './command.ts';
import { callerOf } from './command.ts';
import { confirmByName } from './confirm.ts';
import { projectOf } from './default-project.ts';
import { CliError, EXIT } from './errors.ts';
import { answer, api, given, levelOption, need, type Caller, type Options } from './manage-common.ts';
import { relativeTime } from './relative-time.ts';
import type { Io, Line } from './run.ts';
import type { Style } from './style.ts';
import { nearest } from './suggest.ts';
import { columns } from './table.ts';
import { CREDENTIAL_VARIABLE, upstreamCredential } from './upstream-credential.ts';

type Upstream = AnswerOf<OperationOf<'getUpstream'>>;
type Tool = Upstream['tools'][number];

/** What every subcommand reads: the output, the caller, the options and the command's words (`args[1]` the upstream's name). */
interface UpstreamCall {
  io: Io;
  /** The key and gateway, read once the command line was found usable (so a usage error comes first). */
  caller: () => Promise<Caller>;
  v: Options;
  name: string | undefined;
  args: string[];
}

/** A tool's state as the table shows it: `listed` is `ok`. */
const stateOf = (t: Tool) => (t.state === 'listed' ? 'ok' : t.state);

const stateStyle = (cell: string): Style | undefined =>
  cell === 'ok' ? 'green' : cell === 'missing' ? 'red' : cell === 'new' || cell === 'changed' ? 'yellow' : undefined;

/** The upstream's name, or a usage error saying how to give it. */
function nameOf({ name }: UpstreamCall, verb: string): string {
  if (!name) throw new CliError(`Which upstream server? svc upstreams ${verb} <name> (names: svc upstreams list).`, EXIT.usage);
  return name;
}

/**
 * Words past the expected ones are refused, and not repeated: a credential typed there by mistake
 * must not reach the terminal's scrollback or a CI log a second time.
 */
function noMoreWords({ args }: UpstreamCall, verb: string): void {
  const extra = args.length - 2;
  if (extra > 0)
    throw new CliError(
      `svc upstreams ${verb} <name> takes no other word; ${extra === 1 ? 'one was' : `${extra} were`} given (not repeated here).`,
      EXIT.usage,
      `A credential's value is never given on the command line: set ${CREDENTIAL_VARIABLE}, or pipe it with --credential-stdin.`,
    );
}

/** --timeout-ms as a number (the contract bounds it; the server says when it is out of them). */
function timeoutOf(v: Options): number | undefined {
  const text = given(v, 'timeout-ms');
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new CliError(`--timeout-ms takes milliseconds, e.g. --timeout-ms 10000; not ${text}.`, EXIT.usage);
  return Number(text);
}

/** The server and its tools, as show, add, update and refresh print them. */
function view(u: Upstream, slug: string): Line[] {
  const now = Date.now();
  const credential = u.credential ? `sent in ${u.credential.header} (its value is never shown)` : 'none';
  const withState = (state: Tool['state']) => u.tools.filter((t) => t.state === state);
  const hints = [
    withState('new').length ? `New tools stay off until turned on: svc upstreams tool ${u.name} <tool> --enable --project ${slug}` : '',
    withState('changed').length
      ? `Changed tools are offered as they were until the change is accepted: svc upstreams tool ${u.name} <tool> --accept-change --project ${slug} (--json shows it in "pending")`
      : '',
    withState('missing').length ? 'Missing tools are no longer listed by the server, so not offered; their rows are kept.' : '',
  ].filter(Boolean);
  return [
    `Upstream ${u.name} of ${slug}: ${u.url}`,
    `  timeout ${u.timeout_ms} ms; credential: ${credential}; protocol ${u.protocol_version ?? 'not known yet'}`,
    `  added ${u.added_at ? relativeTime(u.added_at, now) : '-'} by ${u.added_by}; tools read ${u.refreshed_at ? relativeTime(u.refreshed_at, now) : 'never'}`,
    ...(u.problem ? [[{ text: '  problem: ', style: 'red' as const }, { text: u.problem }]] : []),
    '',
    ...(u.tools.length
      ? columns(
          u.tools.map((t) => ({ ...t, shown: stateOf(t), on: t.enabled ? 'yes' : 'no' })),
          [
            ['listed_name', 'TOOL', { free: true }],
            ['shown', 'STATE', { style: stateStyle }],
            ['level', 'LEVEL'],
            ['plan', 'PLAN'],
            ['on', 'ENABLED'],
          ],
        )
      : ['It lists no tools.']),
    ...(hints.length ? ['', ...hints] : []),
  ];
}

async function list({ io, caller, v }: UpstreamCall): Promise<void> {
  const c = await caller();
  const slug = await projectOf(io.env, c, v);
  const { upstreams } = await answer(api(c).listUpstreams({ params: { project: slug } }), 'upstreams list');
  const rows = upstreams.map((u) => {
    const flagged = ['new', 'changed', 'missing']
      .map((state) => [state, u.tools.filter((t) => t.state === state).length] as const)
      .filter(([, n]) => n > 0)
      .map(([state, n]) => `${n} ${state}`);
    return { ...u, count: `${u.tools.length}${flagged.length ? ` (${flagged.join(', ')})` : ''}` };
  });
  return io.result(
    { upstreams },
    rows.length
      ? [
          ...columns(rows, [
            ['name', 'NAME'],
            ['url', 'URL', { free: true }],
            ['count', 'TOOLS'],
            ['refreshed_at', 'TOOLS READ', { time: true }],
            ['problem', 'PROBLEM', { free: true }],
          ]),
          '',
          `Its tools and their rows: svc upstreams show <name> --project ${slug}`,
        ]
      : [
          `No upstream MCP servers in ${slug}. Register one: svc upstreams add <name> --url https://notes.example.com/mcp --project ${slug}`,
        ],
  );
}

async function show(call: UpstreamCall): Promise<void> {
  const { io, caller, v } = call;
  const name = nameOf(call, 'show');
  const c = await caller();
  const slug = await projectOf(io.env, c, v);
  const u = await answer(api(c).getUpstream({ params: { project: slug, name } }), 'upstreams show');
  return io.result(u, view(u, slug));
}

async function add(call: UpstreamCall): Promise<void> {
  const { io, caller, v } = call;
  const name = nameOf(call, 'add');
  noMoreWords(call, 'add');
  const url = need(v, 'url', '--url https://notes.example.com/mcp');
  const timeout = timeoutOf(v);
  const credential = await upstreamCredential(v, io.env);
  const c = await caller();
  const slug = await projectOf(io.env, c, v);
  const body = { name, url, ...(timeout === undefined ? {} : { timeout_ms: timeout }), ...(credential ? { credential } : {}) };
  const u = await answer(api(c).addUpstream({ params: { project: slug }, body }), 'upstreams add');
  return io.result(u, [
    `Upstream ${u.name} registered: ${u.tools.length} tools, listed to the project's clients as ${u.name}__<tool>.`,
    '',
    ...view(u, slug),
  ]);
}

async function update(call: UpstreamCall): Promise<void> {
  const { io, caller, v } = call;
  const name = nameOf(call, 'update');
  noMoreWords(call, 'update');
  const url = given(v, 'url');
  const timeout = timeoutOf(v);
  const remove = v['remove-credential'] === true;
  if (remove && given(v, 'credential-header') !== undefined)
    throw new CliError('Give --credential-header for a new credential, or --remove-credential; not both.', EXIT.usage);
  const credential = remove ? null : await upstreamCredential(v, io.env);
  const body = {
    ...(url === undefined ? {} : { url }),
    ...(timeout === undefined ? {} : { timeout_ms: timeout }),
    ...(credential === undefined ? {} : { credential }),
  };
  if (Object.keys(body).length === 0)
    throw new CliError(
      'Give what changes: --url, --timeout-ms, --credential-header (its value in the environment or on stdin) or --remove-credential.',
      EXIT.usage,
    );
  const c = await caller();
  const slug = await projectOf(io.env, c, v);
  const u = await answer(api(c).updateUpstream({ params: { project: slug, name }, body }), 'upstreams update');
  const reread = url !== undefined || credential !== undefined;
  return io.result(u, [`Upstream ${u.name} changed${reread ? ', and its tools read again' : ''}.`, '', ...view(u, slug)]);
}

async function refresh(call: UpstreamCall): Promise<void> {
  const { io, caller, v } = call;
  const name = nameOf(call, 'refresh');
  const c = await caller();
  const slug = await projectOf(io.env, c, v);
  const u = await answer(api(c).refreshUpstream({ params: { project: slug, name } }), 'upstreams refresh');
  return io.result(u, [`Read ${u.name}'s tools again: ${u.tools.length} tools.`, '', ...view(u, slug)]);
}

/** The tool's row change that the options ask for; a usage error when they ask for none, or for both --enable and --disable. */
function toolChange(v: Options) {
  if (v['enable'] === true && v['disable'] === true) throw new CliError('Give --enable or --disable, not both.', EXIT.usage);
  const plan = given(v, 'plan')?.toUpperCase();
  if (plan !== undefined && !isPlan(plan)) {
    const near = nearest(plan, PLANS);
    throw new CliError(`Unknown plan "${plan}".${near ? ` Did you mean ${near}?` : ''}`, EXIT.usage, `Give --plan ${PLANS.join('|')}.`);
  }
  const approval = approvalOption(v);
  const cost = costOption(v);
  const change = {
    ...(given(v, 'level') === undefined ? {} : { level: levelOption(v, 'level') }),
    ...(approval === undefined ? {} : { approval }),
    ...(cost === undefined ? {} : { cost }),
    ...(plan === undefined ? {} : { plan }),
    ...(v['enable'] === true ? { enabled: true } : v['disable'] === true ? { enabled: false } : {}),
    ...(v['accept-change'] === true ? { accept_change: true } : {}),
  };
  if (Object.keys(change).length === 0)
    throw new CliError(
      'Give what changes: --level L, --plan P, --approval A, --cost N, --enable or --disable, --accept-change.',
      EXIT.usage,
    );
  return change;
}

/** --cost as the row holds it: a whole number of the caller's tool budget, within the declared bounds. */
function costOption(v: Options): number | undefined {
  const raw = given(v, 'cost');
  if (raw === undefined) return undefined;
  const { minimum, maximum } = MANAGEMENT_OPERATIONS.setUpstreamTool.body.properties.cost;
  const n = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (Number.isInteger(n) && n >= minimum && n <= maximum) return n;
  throw new CliError(`--cost must be a whole number from ${minimum} to ${maximum}, not "${raw}".`, EXIT.usage);
}

/** --approval as the row holds it (docs/approvals.md "The rule"): none, all, agents, below:LEVEL, levels in any case. */
function approvalOption(v: Options): ApprovalRule | undefined {
  const raw = given(v, 'approval');
  if (raw === undefined) return undefined;
  const lower = raw.toLowerCase();
  const rule = lower.startsWith('below:') ? `below:${lower.slice('below:'.length).toUpperCase()}` : lower;
  if (isApprovalRule(rule)) return rule;
  const near = nearest(rule, APPROVAL_RULES);
  throw new CliError(
    `Unknown approval rule "${raw}".${near ? ` Did you mean ${near}?` : ''}`,
    EXIT.usage,
    `Give --approval ${APPROVAL_RULES.join('|')}.`,
  );
}

async function tool(call: UpstreamCall): Promise<void> {
  const { io, caller, v, args } = call;
  const name = nameOf(call, 'tool');
  const asked = args[2];
  if (!asked) throw new CliError(`Which tool? svc upstreams tool ${name} <tool> ... (tools: svc upstreams show ${name}).`, EXIT.usage);
  const body = toolChange(v);
  const c = await caller();
  const slug = await projectOf(io.env, c, v);
  // The tool by its name at the upstream or as listed here (notes__read_notes), as `show` prints it.
  const current = await answer(api(c).getUpstream({ params: { project: slug, name } }), 'upstreams tool');
  const found = current.tools.find((t) => t.name === asked || t.listed_name === asked);
  if (!found) {
    const near = nearest(
      asked,
      current.tools.flatMap((t) => [t.name, t.listed_name]),
    );
    throw new CliError(
      `${name} has no tool "${asked}".${near ? ` Did you mean ${near}?` : ''}`,
      EXIT.usage,
      `Its tools: svc upstreams show ${name} --project ${slug}`,
    );
  }
  const u = await answer(api(c).setUpstreamTool({ params: { project: slug, name, tool: found.name }, body }), 'upstreams tool');
  const row = u.tools.find((t) => t.name === found.name) ?? found;
  return io.result(u, [
    `${row.listed_name}: ${row.level}, plan ${row.plan} and up, ${row.enabled ? 'enabled' : 'disabled'}, state ${stateOf(row)}${row.cost === 1 ? '' : `, a call costs ${row.cost} of the caller's tool budget`}${row.approval === 'none' ? '' : `, calls wait for an admin's approval (${row.approval})`}.`,
  ]);
}

async function remove(call: UpstreamCall): Promise<void> {
  const { io, caller, v } = call;
  const name = nameOf(call, 'remove');
  const c = await caller();
  const slug = await projectOf(io.env, c, v);
  if (v['yes'] !== true)
    await confirmByName({
      action: `remove upstream ${name} from ${slug}`,
      consequence: "Its tools stop being offered to the project's clients.",
      name,
      withYes: `svc upstreams remove ${name} --project ${slug} --yes`,
    });
  const r = await answer(api(c).removeUpstream({ params: { project: slug, name } }), 'upstreams remove');
  return io.result(r, [`Upstream ${name} removed from ${slug}: its tools are no longer offered.`]);
}

/** Each subcommand of `svc upstreams`, by the word that names it. */
const SUBCOMMANDS: Record<string, (call: UpstreamCall) => Promise<void>> = { list, add, show, update, refresh, tool, remove };

export const UPSTREAMS_COMMAND: Command = {
  summary: "a project's upstream MCP servers: list, add, show their tools, update, refresh, set a tool's row, remove",
  usage:
    'svc upstreams list|add <name> --url URL|show <name>|update <name>|refresh <name>|tool <name> <tool>|remove <name> [--project <slug>] [--timeout-ms N] [--credential-header H [--credential-stdin]] [--remove-credential] [--level L] [--plan P] [--approval A] [--cost N] [--enable|--disable] [--accept-change] [--yes] [--json]',
  details: `  --project SLUG      the project (default: the one "svc use" chose, or your only one)
  --url URL           add, update: the server's Streamable HTTP endpoint (http or https)
  --timeout-ms N      add, update: how long one forwarded call may take (1000 to 60000; default 10000)
  --credential-header H
                      add, update: send the server a static credential in header H (e.g. X-Api-Key); its
                      value from $${CREDENTIAL_VARIABLE}, or from stdin with --credential-stdin, never
                      from the command line; it is never shown again
  --remove-credential update: stop sending a credential
  --level LEVEL       tool: who may call it, VIEWER, EDITOR or ADMIN (any case)
  --plan PLAN         tool: the least plan of the workspace, ${PLANS.join(', ')}
  --approval RULE     tool: which calls wait for an admin's approval: none, all, agents (third-party
                      OAuth clients), below:LEVEL (callers below LEVEL)
  --cost N            tool: what one call spends of its caller's tool budget a minute (1 to 1000; 1 unless set)
  --enable, --disable tool: offer the tool, or stop offering it (a new tool starts off)
  --accept-change     tool: take the server's changed description, schema and annotations
  --yes               remove: do not ask first (needed where there is no terminal to ask on)
show lists each tool as clients see it (<name>__<tool>), its state (ok, new, changed, missing), level, plan and whether it is on.
add, update and tool ask for a recent second factor of a person who has one: the dashboard gives it.`,
  options: {
    project: { type: 'string' },
    url: { type: 'string' },
    'timeout-ms': { type: 'string' },
    'credential-header': { type: 'string' },
    'credential-stdin': { type: 'boolean' },
    'remove-credential': { type: 'boolean' },
    level: { type: 'string' },
    plan: { type: 'string' },
    approval: { type: 'string' },
    cost: { type: 'string' },
    enable: { type: 'boolean' },
    disable: { type: 'boolean' },
    'accept-change': { type: 'boolean' },
    yes: { type: 'boolean', short: 'y' },
  },
  subcommands: Object.keys(SUBCOMMANDS),
  async run(io, v, positionals) {
    const [sub = 'list', name] = positionals;
    const run = Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
    if (!run) throw new CliError(`Use svc upstreams ${Object.keys(SUBCOMMANDS).join('|')}.`, EXIT.usage, 'Run "svc upstreams --help".');
    let caller: Promise<Caller> | undefined;
    await run({ io, caller: () => (caller ??= callerOf(io, v)), v, name, args: positionals });
  },
};
