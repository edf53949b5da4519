/**
 * The MCP conformance suite's authorization-server scenarios (`conformance authorization`, pinned
 * in tests/package.json) against the auth-service, for MCP 2025-11-25 and 2026-07-28
 * (docs/conformance.md "Authorization server"):
 * - `authorization-server-metadata-endpoint`: RFC 8414 metadata, including Client ID Metadata
 *   Document support;
 * - `authorization-code-grant`: the suite starts a loopback callback server, prints the
 *   authorization URL (code + PKCE S256 + `resource`, no `scope`) and waits; chromium signs in and
 *   approves as a person would; the suite checks the redirect (its `state`, `code` and, when
 *   present, `iss` equal to the issuer: RFC 9207) and exchanges the code for a token.
 * Every scenario that the suite lists for an authorization server runs here; a new one fails the
 * listing check until someone decides about it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { freePort, outputDir, waitFor } from '@svc/testkit';
import { newPerson, PASSWORD, startStack, type Stack } from '../support/stack.ts';
import { consent, launchBrowser, signInOnPage } from './browser.ts';

const CLI = join(dirname(fileURLToPath(import.meta.resolve('@modelcontextprotocol/conformance/package.json'))), 'dist', 'index.js');
const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
const SCENARIOS = ['authorization-server-metadata-endpoint', 'authorization-code-grant'] as const;

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

let stack: Stack;
let browser: Browser;
let person: { email: string; slug: string };

before(async () => {
  stack = await startStack();
  browser = await launchBrowser();
  person = await newPerson(stack, 'azconf');
});
after(async () => {
  await browser?.close();
  await stack?.close();
});

/** The suite's CLI as a child process, with nothing of this process's environment but PATH. */
function suite(args: string[], cwd: string): { child: ChildProcessWithoutNullStreams; output: () => string; done: Promise<number | null> } {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: cwd, NO_COLOR: '1' },
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const done = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  return { child, output: () => out, done };
}

/** A public client registered for the suite's callback (RFC 7591), as an MCP client would register. */
async function registerClient(port: number): Promise<string> {
  const metadata = (await (await fetch(`${stack.authUrl}/.well-known/oauth-authorization-server`)).json()) as {
    registration_endpoint: string;
  };
  const res = await fetch(metadata.registration_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'MCP conformance suite',
      redirect_uris: [`http://127.0.0.1:${port}/callback`],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  const body = (await res.json()) as { client_id?: string };
  assert.equal(res.status, 201, JSON.stringify(body));
  return body.client_id!;
}

/** The person's part: open the URL the suite printed, sign in, approve. */
async function approveInBrowser(url: string, name: string): Promise<void> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url);
    if (page.url().includes('/signin')) await signInOnPage(page, person.email, PASSWORD, `${name}-01-signin`);
    await consent(page, { kind: 'approve' }, `${name}-02-approve`);
    await page.waitForURL(/127\.0\.0\.1:\d+\/callback/);
  } finally {
    await context.close();
  }
}

test('conformance authorization: the suite lists no authorization-server scenario this file does not run', async () => {
  const work = await outputDir('conformance-authorization');
  const run = suite(['list'], work);
  assert.equal(await run.done, 0, run.output());
  const section = run.output().split(/Authorization server scenarios[^\n]*\n/)[1] ?? '';
  const listed = [...section.matchAll(/^\s+- (\S+) \[/gm)].map((m) => m[1]!);
  assert.deepEqual([...listed].sort(), [...SCENARIOS].sort());
});

// One run of the suite per revision: its code-grant scenario reads the metadata the first scenario
// fetched in the same run (alone, it fails with "Invalid authorization server metadata").
for (const revision of REVISIONS) {
  test(`conformance authorization ${revision}: ${SCENARIOS.join(', ')}`, async (t) => {
    const work = await outputDir('conformance-authorization');
    const results = join(work, revision);
    await rm(results, { recursive: true, force: true });
    const port = await freePort();
    const clientId = await registerClient(port);
    const resource = `${stack.baseUrl}/mcp/${person.slug}`;
    const run = suite(
      [
        'authorization',
        '--url',
        stack.authUrl,
        '--spec-version',
        revision,
        '--output-dir',
        results,
        '--client-id',
        clientId,
        '--port',
        String(port),
        '--resource',
        resource,
      ],
      work,
    );
    const url = await waitFor(() => /^(https?:\/\/\S+\?response_type=code&\S+)$/m.exec(run.output())?.[1], {
      timeout: 20_000,
      message: 'the suite to print the authorization URL',
    });
    await approveInBrowser(url, `conformance-authorization-${revision}`);
    const code = await run.done;
    const dirs = await readdir(results).catch(() => []);
    for (const scenario of SCENARIOS) {
      const dir = dirs.find((d) => d.includes(`-${scenario}-`));
      assert.ok(dir, `no results for ${scenario} (exit ${code}):\n${run.output()}`);
      const checks = JSON.parse(await readFile(join(results, dir, 'checks.json'), 'utf8')) as Check[];
      assert.ok(checks.length > 0, `${scenario} made no checks`);
      for (const c of checks) if (c.status === 'WARNING') t.diagnostic(`warning: ${scenario} ${c.id}: ${c.errorMessage ?? ''}`);
      const failed = checks.filter((c) => c.status === 'FAILURE' || c.status === 'SKIPPED');
      assert.deepEqual(
        failed.map((c) => `${scenario} ${c.id}: ${c.errorMessage ?? ''}`),
        [],
        run.output(),
      );
      t.diagnostic(`${scenario}: ${checks.length} checks passed`);
    }
    assert.equal(code, 0, run.output());
  });
}
