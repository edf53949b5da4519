/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in tests/package.json)
 * against a real gateway, for MCP 2025-11-25 and 2026-07-28: every server scenario that applies to
 * a server offering tools only, one subtest each. The scenarios judged not applicable, and why, are
 * listed below and in docs/conformance.md.
 *
 * The suite's `server` command takes only a URL (no header option in this version), so it talks
 * to a loopback proxy in this process that adds the project API key to every request and keeps a
 * record of each exchange, which a failing subtest prints. The proxy changes nothing else: Host,
 * Origin and the MCP headers reach the gateway as the suite sent them.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort, outputDir } from '@svc/testkit';
import { newPerson, startStack, type Stack } from '../support/stack.ts';

const SUITE = dirname(fileURLToPath(import.meta.resolve('@modelcontextprotocol/conformance/package.json')));
const CLI = join(SUITE, 'dist', 'index.js');

type Revision = '2025-11-25' | '2026-07-28';
const REVISIONS: readonly Revision[] = ['2025-11-25', '2026-07-28'];

/** The scenarios run, per revision (each at that revision's wire: initialize, or stateless `_meta`). */
const APPLICABLE: Record<Revision, readonly string[]> = {
  '2025-11-25': [
    'server-initialize',
    'server-session-lifecycle',
    'ping',
    'tools-list',
    'server-sse-multiple-streams',
    'dns-rebinding-protection',
  ],
  '2026-07-28': [
    'server-stateless',
    'tools-list',
    'server-sse-multiple-streams',
    'dns-rebinding-protection',
    'caching',
    'http-header-validation',
    'input-required-result-unsupported-methods',
  ],
};

const FIXTURE_TOOL =
  "calls a diagnostic tool that only the suite's reference server has (the gateway's tools are svc_*; calling them is covered by tests/gateway/sdk-clients.test.ts)";

/** Scenarios judged not applicable to a tools-only server, and why (docs/conformance.md). */
const NOT_APPLICABLE: Record<string, string> = {
  'logging-set-level': 'the gateway declares no logging capability',
  'completion-complete': 'no completions capability: completions are for prompt and resource-template arguments',
  'tools-call-simple-text': `${FIXTURE_TOOL}: test_simple_text`,
  'tools-call-image': `${FIXTURE_TOOL}: test_image_content`,
  'tools-call-audio': `${FIXTURE_TOOL}: test_audio_content`,
  'tools-call-embedded-resource': `${FIXTURE_TOOL}: test_embedded_resource`,
  'tools-call-mixed-content': `${FIXTURE_TOOL}: test_multiple_content_types`,
  'tools-call-error': `${FIXTURE_TOOL}: test_error_handling`,
  'tools-call-with-progress': `${FIXTURE_TOOL}: test_tool_with_progress (the gateway sends no progress notifications)`,
  'tools-call-with-logging': `${FIXTURE_TOOL}: test_tool_with_logging (no logging capability)`,
  'tools-call-sampling': `${FIXTURE_TOOL}: test_sampling (the gateway never asks the client to sample)`,
  'tools-call-elicitation': `${FIXTURE_TOOL}: test_elicitation (the gateway never elicits)`,
  'json-schema-2020-12': `${FIXTURE_TOOL}: json_schema_2020_12_tool with a fixed schema`,
  'elicitation-sep1034-defaults': 'elicitation: the gateway never sends elicitation/create',
  'elicitation-sep1330-enums': 'elicitation: the gateway never sends elicitation/create',
  'server-sse-polling': `${FIXTURE_TOOL}: test_reconnection; the gateway answers application/json and offers no SSE resumption`,
  'resources-list': 'no resources',
  'resources-read-text': 'no resources',
  'resources-read-binary': 'no resources',
  'resources-templates-read': 'no resources',
  'resources-subscribe': 'no resources',
  'resources-unsubscribe': 'no resources',
  'sep-2164-resource-not-found': 'no resources',
  'prompts-list': 'no prompts',
  'prompts-get-simple': 'no prompts',
  'prompts-get-with-args': 'no prompts',
  'prompts-get-embedded-resource': 'no prompts',
  'prompts-get-with-image': 'no prompts',
  'http-custom-header-server-validation': 'no tool declares x-mcp-header, so no Mcp-Param-* header is defined',
  'input-required-result-basic-elicitation': `${FIXTURE_TOOL}; the gateway never answers input_required`,
  'input-required-result-basic-sampling': `${FIXTURE_TOOL}; the gateway never answers input_required`,
  'input-required-result-basic-list-roots': `${FIXTURE_TOOL}; the gateway never answers input_required`,
  'input-required-result-request-state': `${FIXTURE_TOOL}; the gateway never answers input_required`,
  'input-required-result-multiple-input-requests': `${FIXTURE_TOOL}; the gateway never answers input_required`,
  'input-required-result-multi-round': `${FIXTURE_TOOL}; the gateway never answers input_required`,
  'input-required-result-missing-input-response': `${FIXTURE_TOOL}; the gateway never answers input_required`,
  'input-required-result-non-tool-request': 'uses prompts/get on a fixture prompt: no prompts',
  'input-required-result-result-type': `${FIXTURE_TOOL}; the gateway never answers input_required`,
  'input-required-result-tampered-state': `${FIXTURE_TOOL}; the gateway never answers input_required`,
  'input-required-result-capability-check': `${FIXTURE_TOOL}; the gateway never answers input_required`,
  'input-required-result-ignore-extra-params': `${FIXTURE_TOOL}; the gateway never answers input_required`,
  'input-required-result-validate-input': `${FIXTURE_TOOL}; the gateway never answers input_required`,
};

/** Extension scenarios (not on the spec timeline, not in `list --spec-version`): not offered either. */
const EXTENSIONS_NOT_OFFERED: Record<string, string> = {
  'tasks-*': 'the io.modelcontextprotocol/tasks extension is not offered',
  'sep-2640-skills-*': 'the skills extension is not offered',
};

/**
 * Checks inside an applicable scenario that cannot apply to this server. Each may fail only with
 * the message given; failing any other way is a real failure.
 */
const EXCUSED: Record<string, Record<string, { because: string; message: RegExp }>> = {
  'server-stateless': {
    'sep-2575-server-rejects-undeclared-capability': {
      because: 'no gateway tool needs a client capability (fixture tool test_missing_capability)',
      message: /^Not testable: .*test_missing_capability/,
    },
    'sep-2575-missing-capability-http-400': {
      because: 'the same: there is no -32021 whose HTTP status could be checked',
      message: /^Not testable: .*test_missing_capability/,
    },
    'sep-2575-http-server-no-independent-requests-on-stream': {
      because: 'the gateway never elicits (fixture tool test_streaming_elicitation)',
      message: /^Not testable: .*test_streaming_elicitation/,
    },
    'sep-2575-server-no-log-without-loglevel': {
      because: 'the gateway never logs to the client (fixture tool test_logging_tool)',
      message: /^Not testable: .*test_logging_tool/,
    },
  },
  caching: {
    'sep-2549-prompts-list-caching-hints': { because: 'no prompts: prompts/list is an unknown method', message: /-32601/ },
    'sep-2549-resources-list-caching-hints': { because: 'no resources: resources/list is an unknown method', message: /-32601/ },
    'sep-2549-resources-templates-list-caching-hints': {
      because: 'no resources: resources/templates/list is an unknown method',
      message: /-32601/,
    },
  },
};

interface Check {
  id: string;
  name: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  description?: string;
  errorMessage?: string;
  details?: unknown;
}

interface Exchange {
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  response?: { status: number; headers: Record<string, string>; body: string };
}

/** A loopback proxy that adds one header to every request and records each exchange. */
interface KeyProxy {
  url: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

const KEEP = 2_000;
const clip = (s: string) => (s.length > KEEP ? `${s.slice(0, KEEP)}…` : s);

/** The headers of a recorded exchange, with the credential shown only by its name. */
function headersOf(raw: string[], hidden: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    out[name] = name.toLowerCase() === hidden ? '(the project key)' : raw[i + 1]!;
  }
  return out;
}

async function startKeyProxy(target: URL, header: [string, string]): Promise<KeyProxy> {
  const exchanges: Exchange[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const rawHeaders = [...req.rawHeaders, ...header];
      const exchange: Exchange = {
        request: {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: headersOf(rawHeaders, header[0].toLowerCase()),
          body: clip(body.toString()),
        },
      };
      exchanges.push(exchange);
      const upstream = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: rawHeaders },
        (up: IncomingMessage) => {
          let seen = '';
          exchange.response = { status: up.statusCode ?? 0, headers: headersOf(up.rawHeaders, ''), body: '' };
          res.writeHead(up.statusCode ?? 502, up.rawHeaders);
          up.on('data', (c: Buffer) => {
            if (seen.length < KEEP) seen += c.toString();
            exchange.response!.body = clip(seen);
            res.write(c);
          });
          up.on('end', () => res.end());
          up.on('error', () => res.destroy());
        },
      );
      upstream.on('error', () => res.destroy());
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One run of the suite's CLI, with nothing of this process's environment but PATH. */
function conformance(args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: cwd, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The scenario names `list --server --spec-version <revision>` prints. */
function listed(stdout: string): string[] {
  return [...stdout.matchAll(/^\s+- (\S+) \[/gm)].map((m) => m[1]!);
}

let stack: Stack;
let proxy: KeyProxy;
let mcpUrl: string;
let work: string;

before(async () => {
  stack = await startStack();
  // ENTERPRISE: the suite sends a few hundred requests a minute, more than smaller plans allow.
  const person = await newPerson(stack, 'conf', { plan: 'ENTERPRISE' });
  const { key } = await stack.accounts.keys.createProjectKey({
    project: person.slug,
    workspace: person.user.workspace,
    level: 'VIEWER',
    name: 'conformance',
  });
  proxy = await startKeyProxy(new URL(stack.baseUrl), ['X-API-Key', key]);
  mcpUrl = `${proxy.url}/mcp/${person.slug}`;
  work = await mkdtemp(join(tmpdir(), 'svc-conformance-'));
});
after(async () => {
  await proxy?.close();
  await stack?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** A readable account of a scenario's failed checks and of what went over the wire. */
function explain(failures: Check[], exchanges: Exchange[]): string {
  const checks = failures.map((c) => `  ✗ ${c.id}: ${c.errorMessage ?? c.description ?? ''}\n    ${clip(JSON.stringify(c.details ?? {}))}`);
  const wire = exchanges.map((e) => {
    const h = e.request.headers;
    const mcp = Object.entries(h)
      .filter(([k]) => /^(mcp-|origin$|host$|accept$|content-type$)/i.test(k))
      .map(([k, v]) => `${k}: ${v}`)
      .join('; ');
    return `  > ${e.request.method} ${e.request.url} [${mcp}] ${e.request.body}\n  < ${e.response?.status ?? '(no response)'} ${e.response?.body ?? ''}`;
  });
  return `failed checks:\n${checks.join('\n')}\nexchanges (${exchanges.length}):\n${wire.join('\n')}`;
}

for (const revision of REVISIONS) {
  test(`conformance ${revision}: every server scenario of the suite is either run or judged not applicable`, async () => {
    const run = await conformance(['list', '--server', '--spec-version', revision], work);
    assert.equal(run.code, 0, run.stderr);
    const names = listed(run.stdout);
    assert.ok(names.length > 10, `scenarios listed: ${run.stdout}`);
    const unjudged = names.filter((n) => !APPLICABLE[revision].includes(n) && !(n in NOT_APPLICABLE));
    assert.deepEqual(unjudged, [], 'new scenarios in the suite: decide whether they apply (here and in docs/conformance.md)');
    const gone = APPLICABLE[revision].filter((n) => !names.includes(n));
    assert.deepEqual(gone, [], 'scenarios this file runs that the suite no longer lists');
  });

  for (const scenario of APPLICABLE[revision]) {
    test(`conformance ${revision}: ${scenario}`, async (t) => {
      const results = await outputDir('conformance', revision, scenario);
      await rm(results, { recursive: true, force: true });
      proxy.exchanges.length = 0;
      const run = await conformance(
        ['server', '--url', mcpUrl, '--scenario', scenario, '--spec-version', revision, '--output-dir', results],
        work,
      );
      const exchanges = [...proxy.exchanges];
      const dirs = await readdir(results).catch(() => []);
      const dir = dirs.find((d) => d.startsWith(`server-${scenario}-`));
      assert.ok(dir, `the suite wrote no results (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
      await writeFile(join(results, 'exchanges.json'), JSON.stringify(exchanges, null, 2));
      const checks = JSON.parse(await readFile(join(results, dir, 'checks.json'), 'utf8')) as Check[];
      assert.ok(checks.length > 0, 'the scenario made no checks');

      const excused = EXCUSED[scenario] ?? {};
      const failures: Check[] = [];
      for (const c of checks) {
        const excuse = excused[c.id];
        if (c.status === 'FAILURE' && excuse && excuse.message.test(c.errorMessage ?? '')) {
          t.diagnostic(`not applicable: ${c.id} (${excuse.because})`);
        } else if (c.status === 'FAILURE') {
          failures.push(c);
        } else if (c.status === 'WARNING') {
          t.diagnostic(`warning: ${c.id}: ${c.errorMessage ?? c.description ?? ''}`);
        }
      }
      const passed = checks.filter((c) => c.status === 'SUCCESS').length;
      t.diagnostic(`${passed} of ${checks.length} checks passed; results in ${results}`);
      assert.equal(failures.length, 0, explain(failures, exchanges));
    });
  }
}

test('conformance: the scenarios judged not applicable are named, with a reason', (t) => {
  for (const [name, why] of Object.entries({ ...NOT_APPLICABLE, ...EXTENSIONS_NOT_OFFERED })) t.diagnostic(`${name}: ${why}`);
  for (const revision of REVISIONS) for (const s of APPLICABLE[revision]) assert.ok(!(s in NOT_APPLICABLE), s);
});
