/** `svc call` (docs/cli.md "svc"): one tool through the gateway's REST route, its result printed. */
import { SURFACES } from '@svc/policy';
import { callerOf, surfaceOf, type Command } from './command.ts';
import { projectOf } from './default-project.ts';
import { CliError, EXIT } from './errors.ts';
import { baseUrlOf } from './hosts.ts';
import { refusal, requestJson, type JsonResponse } from './http.ts';
import type { Caller } from './manage-common.ts';
import { nearest } from './suggest.ts';
import { toolNames } from './tools-command.ts';
import { toolArguments } from './tool-args.ts';

export const CALL_COMMAND: Command = {
  summary: 'call one tool through the gateway and print its result',
  usage:
    'svc call <tool> [--project <slug>] [--arg name=value ...] [--args JSON] [--rate-limit] [--json]\n       svc call <tool> --team <team_slug> ...',
  details: (env) => `  --project SLUG      the project (POST ${baseUrlOf({}, env)}/api/v1/projects/SLUG/tools/<tool>);
                      default: the one "svc use" chose, or your only one. The tools: svc tools
  --team SLUG         a team endpoint instead (service-account keys; svc_multi_project_query)
  --arg NAME=VALUE    one argument; VALUE is taken as JSON when it parses (5, true, {"a":1}), else as text
  --args JSON         all arguments as one JSON object (--arg values are applied on top)
  --rate-limit        also print the rate-limit headers (stderr; "rate_limit" with --json)
  --surface NAME      the connection surface: ${SURFACES.join(', ')} (default hosted; X-Svc-Surface)
Exit codes: 0 ok, 1 refused or the tool reported an error, 2 usage, 3 credential, 4 unreachable.`,
  options: {
    project: { type: 'string' },
    team: { type: 'string' },
    arg: { type: 'string', multiple: true },
    args: { type: 'string' },
    'rate-limit': { type: 'boolean', default: false },
    surface: { type: 'string' },
  },
  async run(io, v, positionals) {
    const tool = positionals[0];
    if (!tool)
      throw new CliError(
        'Which tool? Give its name, e.g. svc call svc_help --project my-project.',
        EXIT.usage,
        'Run "svc tools" for the ones you can call.',
      );
    const team = v['team'] as string | undefined;
    if (v['project'] !== undefined && team !== undefined)
      throw new CliError('Give one of --project <slug> or --team <team_slug>, not both.', EXIT.usage);
    const args = toolArguments(v['args'] as string | undefined, (v['arg'] as string[] | undefined) ?? []);
    const surface = surfaceOf(v);
    const c = await callerOf(io, v);
    const project = team === undefined ? await projectOf(io.env, c, v) : undefined;
    const path = project ? `projects/${encodeURIComponent(project)}` : `teams/${encodeURIComponent(team!)}`;
    const res = await requestJson(`${c.base}/api/v1/${path}/tools/${encodeURIComponent(tool)}`, {
      headers: { 'X-API-Key': c.cred.key, ...(surface ? { 'X-Svc-Surface': surface } : {}) },
      body: args,
    });
    const rateLimit = v['rate-limit'] ? rateLimitOf(res.headers) : undefined;
    if (rateLimit && !io.json)
      io.err(
        Object.entries(rateLimit)
          .map(([k, val]) => `${k}: ${val}`)
          .join('\n'),
      );
    if (res.status !== 200) throw await toolRefusal(c, res, tool, project ? `--project ${project}` : `--team ${team!}`, path);
    const result = res.body as { content?: { type: string; text?: string }[]; isError?: boolean };
    const text = (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text ?? '');
    io.result(rateLimit ? { result, rate_limit: rateLimit } : { result }, text);
    if (result.isError) io.fail(EXIT.failed);
  },
};

function rateLimitOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name.startsWith('x-ratelimit-') || name.startsWith('ratelimit') || name === 'retry-after') out[name] = value;
  });
  return out;
}

/**
 * A refused call, its remedy about tools pointing at `svc tools` (the tools this key can call
 * here, each with its schema) rather than the REST API's OpenAPI document; an unknown tool also
 * gets the nearest name this key can call.
 */
async function toolRefusal(c: Caller, res: JsonResponse, tool: string, where: string, path: string): Promise<CliError> {
  const error = refusal(res, tool);
  const code = (res.body['error'] as { code?: unknown } | undefined)?.code;
  if (res.status === 404 && code === 'not_found' && /^Unknown tool/.test(error.message.slice(tool.length + 2))) {
    const names = await toolNames(c, path).catch(() => []);
    const near = nearest(tool, names);
    return new CliError(
      `${error.message}${near ? `. Did you mean ${near}?` : ''}`,
      error.exitCode,
      `Run "svc tools ${where}" for the tools this key can call there.`,
    );
  }
  if (res.status === 400 && code === 'invalid_request')
    return new CliError(error.message, error.exitCode, `Run "svc tools describe ${tool} ${where}" for the arguments it takes.`);
  return error;
}
