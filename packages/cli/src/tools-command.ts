/**
 * `svc tools` (docs/cli.md "svc tools"): the tools the current key can call on a project, as the
 * gateway's MCP endpoint lists them (`tools/list`, filtered there by the caller's level, plan and
 * surface), and `svc tools describe <name>`: its description and input schema (the JSON Schema
 * its arguments are checked against), with the `svc call` line that calls it. `svc tools approval`
 * (docs/approvals.md "The rule"): which calls of svc's own tools wait for an admin's approval on the
 * project, and setting that rule (an admin's).
 */
import { callerOf, type Command } from './command.ts';
import { projectOf } from './default-project.ts';
import { CliError, EXIT } from './errors.ts';
import { refusal, requestJson } from './http.ts';
import { answer, api, type Caller } from './manage-common.ts';
import type { Io, Line } from './run.ts';
import { nearest } from './suggest.ts';
import { columns } from './table.ts';

export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: { properties?: Record<string, { type?: unknown; description?: string }>; required?: string[] };
  annotations?: Record<string, unknown>;
}

/**
 * tools/list on `/mcp/<mcpPath>` with the key, one JSON-RPC request without a session (the
 * gateway is stateless; MCP 2025-03-26 "Streamable HTTP": the client accepts JSON or an event stream).
 */
async function listTools(c: Caller, mcpPath: string): Promise<ListedTool[]> {
  const res = await requestJson(`${c.base}/mcp/${mcpPath}`, {
    headers: { 'X-API-Key': c.cred.key, accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  });
  const result = res.body['result'] as { tools?: ListedTool[] } | undefined;
  if (res.status !== 200 || !result) throw refusal(res, 'tools');
  return result.tools ?? [];
}

/** The names of the tools this key can call at a REST path (`projects/<slug>` or `teams/<team>`). */
export async function toolNames(c: Caller, restPath: string): Promise<string[]> {
  const [kind, slug = ''] = restPath.split('/');
  return (await listTools(c, kind === 'teams' ? `team/${slug}` : slug)).map((t) => t.name);
}

const firstLine = (text = '') => text.split('\n')[0]!.trim();

/** The arguments of a tool's input schema, one line each: name, type, whether required, its description. */
function argumentLines(tool: ListedTool): Line[] {
  const properties = Object.entries(tool.inputSchema?.properties ?? {});
  if (!properties.length) return ['It takes no arguments.'];
  const required = new Set(tool.inputSchema?.required ?? []);
  const rows = properties.map(([name, p]) => ({
    name,
    type: Array.isArray(p.type) ? p.type.join('|') : typeof p.type === 'string' ? p.type : 'any',
    required: required.has(name) ? 'yes' : '',
    description: firstLine(p.description),
  }));
  return columns(rows, [
    ['name', 'ARGUMENT'],
    ['type', 'TYPE'],
    ['required', 'REQUIRED'],
    ['description', 'DESCRIPTION', { free: true }],
  ]);
}

const RULES = 'none, all, agents, below:VIEWER, below:EDITOR, below:ADMIN';

/** `svc tools approval [<name> <rule>]`: the rules of svc's own tools on the project, or one set. */
async function approvalCommand(io: Io, c: Caller, slug: string, name: string | undefined, rule: string | undefined): Promise<void> {
  if (name && rule) {
    const t = await answer(
      // The rule is checked by the API against the contract's list, which names the ones it takes.
      api(c).setBuiltinTool({ params: { project: slug, tool: name }, body: { approval: rule as 'none' } }),
      'tools approval',
    );
    return io.result(t, [
      t.approval === 'none'
        ? `Calls of ${t.name} on ${slug} run at once.`
        : `Calls of ${t.name} on ${slug} now wait for an admin's approval (${t.approval}): see them with svc approvals --project ${slug}.`,
    ]);
  }
  if (name) throw new CliError(`Which rule? svc tools approval ${name} <rule> --project ${slug} (rules: ${RULES}).`, EXIT.usage);
  const list = await answer(api(c).listBuiltinTools({ params: { project: slug } }), 'tools approval');
  io.result(list, [
    ...columns(
      list.tools.map((t) => ({ ...t, approval: t.approval_settable ? t.approval : 'always runs', set_by: t.set_by ?? '' })),
      [
        ['name', 'TOOL'],
        ['level', 'WHO MAY CALL'],
        ['approval', 'APPROVAL'],
        ['set_by', 'SET BY', { free: true }],
      ],
    ),
    '',
    `Make calls wait: svc tools approval <tool> <rule> --project ${slug} (rules: ${RULES}).`,
  ]);
}

export const TOOLS_COMMAND: Command = {
  summary: 'the tools the current key can call on a project; describe one (its arguments and schema)',
  usage:
    'svc tools [list] [--project <slug>] [--json]\n       svc tools describe <name> [--project <slug>] [--json]\n       svc tools approval [<name> <rule>] [--project <slug>] [--json]',
  details: `  --project SLUG      the project (default: the one "svc use" chose, or your only one)
The list is the gateway's tools/list for this key: only what its level, the plan and the surface allow.
approval lists which calls of svc's own tools wait for an admin's approval on the project; with a
tool and a rule (${RULES}) it sets one (the project's admins; a recent second factor if you have one).
An upstream server's tool has its rule on its row: svc upstreams tool <server> <tool> --approval <rule>.`,
  options: { project: { type: 'string' } },
  subcommands: ['list', 'describe', 'approval'],
  async run(io, v, positionals) {
    const [sub = 'list', name, rule] = positionals;
    const c = await callerOf(io, v);
    const slug = await projectOf(io.env, c, v);
    if (sub === 'approval') return approvalCommand(io, c, slug, name, rule);
    const tools = await listTools(c, encodeURIComponent(slug));
    if (sub === 'list')
      return io.result(
        { project: slug, tools },
        tools.length
          ? [
              ...columns(
                tools.map((t) => ({ name: t.name, description: firstLine(t.description) })),
                [
                  ['name', 'TOOL'],
                  ['description', 'DESCRIPTION', { free: true }],
                ],
              ),
              '',
              `Describe one: svc tools describe <name> --project ${slug}`,
            ]
          : [`This key can call no tool on ${slug}.`],
      );
    if (!name) throw new CliError(`Which tool? svc tools describe <name> --project ${slug} (names: svc tools).`, EXIT.usage);
    const tool = tools.find((t) => t.name === name);
    if (!tool) {
      const near = nearest(
        name,
        tools.map((t) => t.name),
      );
      throw new CliError(
        `This key cannot call a tool "${name}" on ${slug}.${near ? ` Did you mean ${near}?` : ''}`,
        EXIT.usage,
        `Run "svc tools --project ${slug}" for the ones it can.`,
      );
    }
    const example = Object.keys(tool.inputSchema?.properties ?? {})
      .filter((p) => tool.inputSchema?.required?.includes(p))
      .map((p) => ` --arg ${p}=...`)
      .join('');
    io.result({ project: slug, tool }, [
      [{ text: tool.name, style: 'bold' }, { text: tool.title ? `: ${tool.title}` : '' }],
      '',
      tool.description ?? '',
      '',
      ...argumentLines(tool),
      '',
      'Input schema (JSON Schema):',
      JSON.stringify(tool.inputSchema ?? {}, null, 2),
      '',
      `Call it: svc call ${tool.name} --project ${slug}${example}`,
    ]);
  },
};
