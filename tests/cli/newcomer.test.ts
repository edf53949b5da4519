/**
 * What a newcomer at a terminal needs besides login (docs/cli.md): `svc auth token` prints the
 * stored key for another tool, `svc mcp-config` says where $SVC_API_KEY comes from and prints a
 * `claude mcp add` line and a Cursor install link, `--surface` is checked, and create-svc stops
 * before the browser step when the folder cannot be written as it should. The bins run as a
 * person runs them; no server is needed (the unreachable gateway proves none was asked).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { generateCredential } from '@svc/credentials';
import { offerToOpen } from '@svc/cli/browser.ts';
import { freePort, waitFor } from '@svc/testkit';
import { BIN, ROOT, runToEnd, tempDir } from './support.ts';

async function storedKey(expiresAt: string) {
  const dir = await tempDir('auth-token');
  const key = generateCredential('user_key');
  await writeFile(
    join(dir, 'credentials.json'),
    JSON.stringify({
      version: 1,
      key,
      expires_at: expiresAt,
      user: { id: 'user_1', email: 'ada@example.com' },
      base_url: 'http://127.0.0.1:9',
      auth_url: 'http://127.0.0.1:9',
      saved_at: new Date().toISOString(),
    }),
    { mode: 0o600 },
  );
  return { dir, key };
}

test('svc auth token prints the stored key alone, for $(...); without one it says to log in', async () => {
  const { dir, key } = await storedKey(new Date(Date.now() + 86_400_000).toISOString());
  const r = await runToEnd(BIN.svc, ['auth', 'token'], { SVC_CONFIG_DIR: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `${key}\n`, 'the key in full and nothing else');
  const json = await runToEnd(BIN.svc, ['auth', 'token', '--json'], { SVC_CONFIG_DIR: dir });
  assert.equal(JSON.parse(json.stdout).key, key);

  const none = await runToEnd(BIN.svc, ['auth', 'token'], { SVC_CONFIG_DIR: await tempDir('no-key') });
  assert.equal(none.code, 3);
  assert.match(none.stderr, /Not signed in: there is no stored key\.\nRun "svc login" first\./);
  assert.equal(none.stdout, '');

  const old = await storedKey('2020-01-01T00:00:00.000Z');
  const expired = await runToEnd(BIN.svc, ['auth', 'token'], { SVC_CONFIG_DIR: old.dir });
  assert.equal(expired.code, 3);
  assert.match(expired.stderr, /expired on 2020-01-01.*\n.*svc login/);
  assert.ok(!expired.stderr.includes(old.key) && !expired.stdout.includes(old.key));

  const wrong = await runToEnd(BIN.svc, ['auth', 'tokens'], { SVC_CONFIG_DIR: dir });
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /svc auth token/);
});

test('svc mcp-config names where $SVC_API_KEY comes from, in each of the three states', async () => {
  const base = { SVC_BASE_URL: 'http://svc.example', SVC_CONFIG_DIR: await tempDir('mcp-none') };
  const none = await runToEnd(BIN.svc, ['mcp-config', '--project', 'docs'], base);
  assert.equal(none.code, 0, none.stderr);
  assert.match(
    none.stdout,
    /\$SVC_API_KEY: not set, and you are not signed in\. Run "svc login", then export SVC_API_KEY=\$\(svc auth token\)/,
  );

  const { dir } = await storedKey(new Date(Date.now() + 86_400_000).toISOString());
  const stored = await runToEnd(BIN.svc, ['mcp-config', '--project', 'docs'], { ...base, SVC_CONFIG_DIR: dir });
  assert.match(
    stored.stdout,
    /\$SVC_API_KEY: not set in this shell\. Your "svc login" key can be used: export SVC_API_KEY=\$\(svc auth token\)/,
  );

  const key = generateCredential('project_key');
  const fromEnv = await runToEnd(BIN.svc, ['mcp-config', '--project', 'docs'], { ...base, SVC_API_KEY: key });
  assert.match(fromEnv.stdout, /\$SVC_API_KEY: set in this shell \(svc-/);
  assert.ok(!fromEnv.stdout.includes(key), 'the key itself is never printed');
});

test('svc mcp-config prints a claude mcp add line and a Cursor install link that carry the same entry', async () => {
  const env = { SVC_BASE_URL: 'http://svc.example', SVC_CONFIG_DIR: await tempDir('mcp-links') };
  const r = await runToEnd(BIN.svc, ['mcp-config', '--project', 'docs', '--surface', 'companion'], env);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(
    r.stdout.includes(
      "claude mcp add --transport http --scope project svc-docs http://svc.example/mcp/docs --header 'X-API-Key: ${SVC_API_KEY}' --header 'X-Svc-Surface: companion'",
    ),
    r.stdout,
  );
  const json = JSON.parse((await runToEnd(BIN.svc, ['mcp-config', '--project', 'docs', '--surface', 'companion', '--json'], env)).stdout);
  const link = new URL(json.cursor_install_link);
  assert.equal(link.protocol, 'cursor:');
  assert.equal(link.searchParams.get('name'), 'svc-docs');
  assert.deepEqual(JSON.parse(Buffer.from(link.searchParams.get('config')!, 'base64').toString()), {
    url: 'http://svc.example/mcp/docs',
    headers: { 'X-API-Key': '${env:SVC_API_KEY}', 'X-Svc-Surface': 'companion' },
  });
  assert.equal(json.clients.claude.config.mcpServers['svc-docs'].headers['X-Svc-Surface'], 'companion');

  const bad = await runToEnd(BIN.svc, ['mcp-config', '--project', 'docs', '--surface', 'desktop'], env);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Unknown surface "desktop": use hosted, companion, orchestrator\./);
  const noProject = await runToEnd(BIN.svc, ['mcp-config'], env);
  assert.match(noProject.stderr, /Which project\? Give --project <slug>\.\nRun "svc projects"/);
});

test('svc call --surface sends X-Svc-Surface; an unknown one is refused before any request', async () => {
  const seen: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers['x-svc-surface'] as string | undefined);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ content: [{ type: 'text', text: 'ok' }] }));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const env = { SVC_API_KEY: generateCredential('project_key'), SVC_BASE_URL: base, SVC_CONFIG_DIR: await tempDir('surface') };
  try {
    const ok = await runToEnd(BIN.svc, ['call', 'svc_help', '--project', 'p', '--surface', 'orchestrator'], env);
    assert.equal(ok.code, 0, ok.stderr);
    const plain = await runToEnd(BIN.svc, ['call', 'svc_help', '--project', 'p'], env);
    assert.equal(plain.code, 0, plain.stderr);
    const bad = await runToEnd(BIN.svc, ['call', 'svc_help', '--project', 'p', '--surface', 'nope'], env);
    assert.equal(bad.code, 2, 'a usage error');
    assert.deepEqual(seen, ['orchestrator', undefined], 'the refused call sent nothing');
  } finally {
    server.close();
  }
});

test('create-svc stops before the browser step: a broken .mcp.json, or the svc checkout itself', async () => {
  const port = await freePort();
  const dir = await tempDir('broken-mcp');
  await writeFile(join(dir, '.mcp.json'), '{"mcpServers": ');
  const env = { SVC_BASE_URL: `http://127.0.0.1:${port}`, HOME: await tempDir('home') };
  const broken = await runToEnd(BIN.createSvc, ['--dir', dir], env);
  assert.equal(broken.code, 2, broken.stderr);
  assert.match(broken.stderr, /\.mcp\.json is not valid JSON; fix or remove it and run create-svc again\./);
  assert.doesNotMatch(broken.stderr, /Cannot reach|Open /, 'no server was asked and no code shown');

  const here = await runToEnd(BIN.createSvc, [], env, ROOT);
  assert.equal(here.code, 2);
  assert.match(
    here.stderr,
    /is the svc checkout itself, not your project's folder\.\nRun create-svc in the folder of the project to connect, or give it with --dir PATH\./,
  );
});

test('"Press Enter to open the browser" is offered on a terminal only, and opens once', async () => {
  const opened: string[] = [];
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const offer = offerToOpen('http://auth.example/device', {
    input,
    output: { isTTY: true },
    env: {},
    opener: async (url) => void opened.push(url),
  });
  assert.equal(offer.prompt, 'Press Enter to open it in your browser.');
  input.write('\n');
  input.write('\n');
  await waitFor(() => opened.length > 0, { timeout: 2000, message: 'the browser to be opened' });
  offer.close();
  assert.deepEqual(opened, ['http://auth.example/device']);

  const piped = offerToOpen('http://auth.example/device', { input: new PassThrough(), output: { isTTY: true }, env: {} });
  assert.equal(piped.prompt, null, 'nothing is offered when stdin is not a terminal');
  const ci = offerToOpen('http://auth.example/device', { input, output: { isTTY: true }, env: { CI: 'true' } });
  assert.equal(ci.prompt, null, 'nor in CI');
});
