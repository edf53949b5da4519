/**
 * `svc doctor <url>` (docs/cli.md "svc doctor"): walks every discovery path the MCP client
 * families try against an MCP endpoint, svc's or any other, shows what each URL answered, and
 * says for each family whether it would sign in or where it would stop, and why.
 */
import { type Command } from './command.ts';
import { FAMILIES } from './doctor/families.ts';
import { findingsOf } from './doctor/findings.ts';
import { DEFAULT_BOUNDS } from './doctor/probe.ts';
import { reportLines, type DoctorReport } from './doctor/report.ts';
import { verdictOf } from './doctor/verdicts.ts';
import { walk } from './doctor/walk.ts';
import { CliError, EXIT } from './errors.ts';
import { baseUrlOf } from './hosts.ts';

/** The MCP Inspector's own origin: the browser client most people test with. */
const DEFAULT_BROWSER_ORIGIN = 'http://localhost:6274';
const FAMILY_IDS = FAMILIES.map((f) => f.id);

function httpUrl(value: string, what: string): URL {
  const url = URL.canParse(value) ? new URL(value) : null;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    throw new CliError(
      `${what} must be an http or https URL: ${value}`,
      EXIT.usage,
      'Usage: svc doctor <mcp-url>, e.g. svc doctor https://mcp.example.com/mcp',
    );
  url.hash = '';
  return url;
}

/** The endpoint: the URL given, else svc's endpoint of --project on --server (or SVC_BASE_URL). */
function targetOf(v: Record<string, unknown>, positionals: string[], env: NodeJS.ProcessEnv): URL {
  if (positionals.length > 1) throw new CliError('svc doctor takes one URL.', EXIT.usage, 'Usage: svc doctor <mcp-url>');
  if (positionals[0]) return httpUrl(positionals[0], 'The MCP endpoint');
  const project = v['project'];
  if (typeof project !== 'string' || !project)
    throw new CliError(
      "Which MCP endpoint? Give its URL, or --project <slug> for svc's.",
      EXIT.usage,
      'Usage: svc doctor <mcp-url>  or  svc doctor --project <slug>',
    );
  return httpUrl(`${baseUrlOf({ server: v['server'] as string | undefined }, env)}/mcp/${encodeURIComponent(project)}`, 'The MCP endpoint');
}

function timeoutOf(v: Record<string, unknown>): number {
  if (v['timeout'] === undefined) return DEFAULT_BOUNDS.timeoutMs;
  const ms = Number(v['timeout']);
  if (!Number.isInteger(ms) || ms < 100 || ms > 60_000) throw new CliError('--timeout is milliseconds, from 100 to 60000.', EXIT.usage);
  return ms;
}

function familiesOf(v: Record<string, unknown>) {
  const asked = v['client'];
  if (asked === undefined) return FAMILIES;
  const ids = String(asked)
    .split(',')
    .map((s) => s.trim());
  const unknown = ids.filter((id) => !FAMILY_IDS.includes(id));
  if (unknown.length) throw new CliError(`Unknown client family "${unknown.join('", "')}": use ${FAMILY_IDS.join(', ')}.`, EXIT.usage);
  return FAMILIES.filter((f) => ids.includes(f.id));
}

export const DOCTOR_COMMAND: Command = {
  summary: 'check how each MCP client family would discover and sign in to an MCP server (svc or any other)',
  usage: 'svc doctor <mcp-url> [--client ID,...] [--origin URL] [--timeout MS] [--json]   or   svc doctor --project <slug>',
  details: `  <mcp-url>           the MCP endpoint (Streamable HTTP) to check, e.g. https://mcp.example.com/mcp
  --project SLUG      svc's endpoint of this project, on --server or $SVC_BASE_URL
  --client IDS        only these client families (comma-separated): ${FAMILY_IDS.join(', ')}
  --origin URL        the origin browser clients are checked as (default ${DEFAULT_BROWSER_ORIGIN}, the MCP Inspector's)
  --timeout MS        the most one request may take (default ${DEFAULT_BOUNDS.timeoutMs}); bodies over ${DEFAULT_BOUNDS.maxBytes / 1024} KiB are not read
  Sends no credential and registers nothing. Exit code 0 when every family shown would sign in,
  1 when one would stop, 4 when the endpoint could not be reached.`,
  options: { project: { type: 'string' }, client: { type: 'string' }, origin: { type: 'string' }, timeout: { type: 'string' } },
  async run(io, v, positionals) {
    const target = targetOf(v, positionals, io.env);
    const families = familiesOf(v);
    const origin = v['origin'] === undefined ? DEFAULT_BROWSER_ORIGIN : httpUrl(String(v['origin']), '--origin').origin;
    const observations = await walk(target, origin, { ...DEFAULT_BOUNDS, timeoutMs: timeoutOf(v) });
    const verdicts = families.map((f) => verdictOf(f, observations));
    const report: DoctorReport = {
      target: observations.target,
      browser_origin: origin,
      steps: findingsOf(observations),
      families: verdicts,
      would_sign_in: verdicts.filter((x) => x.ok).length,
    };
    io.result(report, reportLines(report));
    const failure = observations.mcp.failure;
    if (failure === 'unreachable' || failure === 'timeout') io.fail(EXIT.unreachable);
    else if (report.would_sign_in < verdicts.length) io.fail(EXIT.failed);
  },
};
