/**
 * `svc api <METHOD> <path>` (docs/cli.md "svc api"), as `gh api` is: one authenticated request to
 * the gateway's REST API (docs/management.md "REST", GET /api/v1/openapi.json), the answer's JSON
 * printed as it came. A non-2xx answer prints its body too and exits 1, whatever the status, as gh api does.
 */
import { readFile } from 'node:fs/promises';
import { callerOf, type Command } from './command.ts';
import { CliError, EXIT } from './errors.ts';
import { requestText } from './http.ts';
import { nearest } from './suggest.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

/** The body of --data: JSON text, `@file` for a file's, `@-` for stdin's. It must be JSON. */
async function dataOf(value: string | undefined): Promise<string | undefined> {
  if (value === undefined) return undefined;
  let text = value;
  if (value.startsWith('@')) {
    const file = value.slice(1);
    try {
      text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
    } catch (err) {
      throw new CliError(`--data ${value}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)}).`, EXIT.usage);
    }
  }
  try {
    JSON.parse(text);
  } catch {
    const what = value.startsWith('@') ? `--data ${value}: ${value === '@-' ? 'stdin' : value.slice(1)}` : '--data';
    throw new CliError(`${what} is not valid JSON.`, EXIT.usage, `Example: --data '{"name":"ci"}'`);
  }
  return text;
}

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

/** The answer's text as JSON, indented when it is JSON. */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export const API_COMMAND: Command = {
  summary: 'an authenticated request to the REST API, its JSON answer printed (like gh api)',
  usage: 'svc api <METHOD> <path> [--data JSON|@file|@-] [--include]',
  details: `  METHOD              GET, POST, PUT, PATCH, DELETE or HEAD (any case)
  path                the path on the gateway, e.g. /api/v1/me or api/v1/projects
  --data JSON         the request's JSON body; @file reads it from a file, @- from stdin
  --include           also print the status line and the headers (stderr)
The answer is printed as it came (JSON indented); a non-2xx answer is printed too, and exits 1.
The operations: GET /api/v1/openapi.json; tools have their own command, svc tools.`,
  options: { data: { type: 'string' }, include: { type: 'boolean', default: false } },
  async run(io, v, positionals) {
    const [rawMethod, rawPath] = positionals;
    if (!rawMethod || !rawPath)
      throw new CliError(
        'Give a method and a path, e.g. svc api GET /api/v1/me.',
        EXIT.usage,
        'Usage: svc api <METHOD> <path> [--data JSON|@file]',
      );
    const method = rawMethod.toUpperCase();
    if (!(METHODS as readonly string[]).includes(method)) {
      const near = nearest(method, METHODS);
      throw new CliError(`Unknown method "${rawMethod}".${near ? ` Did you mean ${near}?` : ''}`, EXIT.usage, `Use ${METHODS.join(', ')}.`);
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(rawPath) || rawPath.startsWith('//'))
      throw new CliError('Give a path on the gateway, not a URL.', EXIT.usage, 'Choose the gateway with --server or SVC_BASE_URL.');
    const path = rawPath.startsWith('/') ? rawPath : `/${rawPath}`;
    const body = await dataOf(v['data'] as string | undefined);
    const c = await callerOf(io, v);
    const res = await requestText(`${c.base}${path}`, {
      method,
      headers: { 'X-API-Key': c.cred.key },
      ...(body === undefined ? {} : { body }),
    });
    if (v['include'] === true) {
      io.err(`HTTP ${res.status} ${res.statusText}`);
      res.headers.forEach((value, name) => io.err(`${name}: ${value}`));
    }
    if (res.text) io.out(pretty(res.text));
    if (res.status < 200 || res.status >= 300) {
      io.err([{ text: 'svc:', style: 'red' }, { text: ` api: ${method} ${path} answered ${res.status} ${res.statusText}.` }]);
      io.fail(EXIT.failed);
    }
  },
};
