/**
 * `svc` end to end against the running services, with the person's approval in chromium:
 * login -> whoami -> projects -> call -> mcp-config -> logout; a denied and an expired sign-in.
 * The personal key must appear in the credentials file and nowhere else.
 */
import assert from 'node:assert/strict';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { oidcRecordKeyByDigest } from '@svc/accounts';
import { parseCredential } from '@svc/credentials';
import { approveDevice, startStackAndBrowser, stopStackAndBrowser } from '../auth/browser.ts';
import { newPerson, PASSWORD, type Stack } from '../support/stack.ts';
import { BIN, runToEnd, start, tempDir } from './support.ts';

let stack: Stack;
let browser: Browser;

before(async () => ({ stack, browser } = await startStackAndBrowser()));
after(() => stopStackAndBrowser(stack, browser));

const envFor = (configDir: string): Record<string, string> => ({
  SVC_BASE_URL: stack.baseUrl,
  SVC_AUTH_URL: stack.authUrl,
  SVC_CONFIG_DIR: configDir,
  HOME: configDir,
});

/** Starts `svc login` and returns it with the code and URI it printed. */
async function startLogin(env: Record<string, string>) {
  const login = start(BIN.svc, ['login'], env);
  const [, uri] = await login.waitForStderr(/Open\s+(\S+)/);
  const [, code] = await login.waitForStderr(/Type\s+([A-Z]{4}-\d{4})/);
  return { login, uri: uri!, code: code! };
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  }
  return out;
}

test('svc login -> whoami -> projects -> call svc_help -> mcp-config -> logout', async () => {
  const who = await newPerson(stack, 'svc-cli');
  const configDir = await tempDir('login');
  const env = envFor(configDir);
  const { login, uri, code } = await startLogin(env);
  assert.equal(uri, `${stack.authUrl}/device`, 'svc-cli is sent to the base verification URI: the code is typed');
  const page = await approveDevice(browser, {
    verificationUri: uri,
    verificationUriComplete: '',
    userCode: code,
    email: who.email,
    password: PASSWORD,
    approval: { kind: 'personal' },
    name: 'svc-login',
    typeCode: true,
  });
  assert.match(page, /Device connected/);
  const loggedIn = await login.exit;
  assert.equal(loggedIn.code, 0, loggedIn.stderr);
  assert.match(loggedIn.stdout, new RegExp(`Signed in as ${who.email}`));

  const file = join(configDir, 'credentials.json');
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  assert.equal((await stat(configDir)).mode & 0o777, 0o700);
  const stored = JSON.parse(await readFile(file, 'utf8')) as { key: string; expires_at: string; user: { email: string } };
  assert.equal(parseCredential(stored.key)?.kind, 'user_key');
  assert.equal(stored.user.email, who.email);
  const key = stored.key;

  const whoami = await runToEnd(BIN.svc, ['whoami', '--json'], env);
  assert.equal(whoami.code, 0, whoami.stderr);
  const me = JSON.parse(whoami.stdout) as { user: { email: string }; key: { kind: string }; days_left: number };
  assert.equal(me.user.email, who.email);
  assert.equal(me.key.kind, 'user_key');
  assert.ok(me.days_left >= 29 && me.days_left <= 30, `days left: ${me.days_left}`);
  const whoamiText = await runToEnd(BIN.svc, ['whoami'], env);
  assert.match(whoamiText.stdout, /days left/);

  const projects = await runToEnd(BIN.svc, ['projects'], env);
  assert.equal(projects.code, 0, projects.stderr);
  assert.match(projects.stdout, new RegExp(`${who.slug}\\s+ADMIN`));

  const call = await runToEnd(BIN.svc, ['call', 'svc_help', '--project', who.slug, '--rate-limit'], env);
  assert.equal(call.code, 0, call.stderr);
  assert.match(call.stdout, /svc_search/);
  assert.match(call.stderr, /x-ratelimit-remaining: \d+/);
  const callJson = await runToEnd(
    BIN.svc,
    ['call', 'svc_search', '--project', who.slug, '--arg', 'query=rotation', '--arg', 'limit=3', '--json'],
    env,
  );
  assert.equal(callJson.code, 0, callJson.stderr);
  assert.ok(Array.isArray((JSON.parse(callJson.stdout) as { result: { content: unknown[] } }).result.content));
  const refused = await runToEnd(BIN.svc, ['call', 'svc_search', '--project', who.slug, '--arg', 'limit=many'], env);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /svc_search: .*limit/);

  const config = await runToEnd(BIN.svc, ['mcp-config', '--project', who.slug], env);
  assert.equal(config.code, 0);
  assert.match(config.stdout, /\$\{SVC_API_KEY\}/);
  assert.match(config.stdout, /\$\{env:SVC_API_KEY\}/);
  assert.ok(config.stdout.includes(`${stack.baseUrl}/mcp/${who.slug}`));

  // The key was printed nowhere, and is stored in exactly one file.
  for (const out of [loggedIn, whoami, whoamiText, projects, call, callJson, refused, config]) {
    assert.ok(!out.stdout.includes(key) && !out.stderr.includes(key), 'a command printed the key');
  }
  const holders = [];
  for (const f of await filesUnder(configDir)) if ((await readFile(f, 'utf8')).includes(key)) holders.push(f);
  assert.deepEqual(holders, [file]);

  const logout = await runToEnd(BIN.svc, ['logout'], env);
  assert.equal(logout.code, 0, logout.stderr);
  assert.match(logout.stdout, /revoked on the server/);
  await assert.rejects(stat(file));
  const afterLogout = await fetch(`${stack.baseUrl}/api/v1/me`, { headers: { 'X-API-Key': key } });
  assert.equal(afterLogout.status, 401);
  const notSignedIn = await runToEnd(BIN.svc, ['whoami'], env);
  assert.equal(notSignedIn.code, 3);
  assert.match(notSignedIn.stderr, /Not signed in/);
});

test('a sign-in denied in the browser ends with a clear message and stores nothing', async () => {
  const who = await newPerson(stack, 'svc-deny');
  const configDir = await tempDir('deny');
  const { login, uri, code } = await startLogin(envFor(configDir));
  await approveDevice(browser, {
    verificationUri: uri,
    verificationUriComplete: '',
    userCode: code,
    email: who.email,
    password: PASSWORD,
    approval: { kind: 'deny' },
    name: 'svc-login-denied',
    typeCode: true,
  });
  const r = await login.exit;
  assert.equal(r.code, 5);
  assert.match(r.stderr, /denied or cancelled in the browser\. Nothing was authorized/);
  assert.deepEqual(await filesUnder(configDir), []);
});

test('a code that expires before approval ends with a clear message', async () => {
  const configDir = await tempDir('expire');
  const { login, code } = await startLogin(envFor(configDir));
  const digest = await stack.client.get(`svc:oidc:user-code:${code.replace('-', '')}`);
  assert.ok(digest, 'the code is stored');
  const key = oidcRecordKeyByDigest('DeviceCode', digest);
  const payload = JSON.parse((await stack.client.hget(key, 'payload')) ?? '{}') as Record<string, unknown>;
  await stack.client.hset(key, 'payload', JSON.stringify({ ...payload, exp: Math.floor(Date.now() / 1000) - 1 }));
  const r = await login.exit;
  assert.equal(r.code, 5);
  assert.match(r.stderr, /The code expired before it was approved/);
  assert.match(r.stderr, /Run the command again/);
});

test('svc call with SVC_API_KEY: the environment key is used first and never printed', async () => {
  const who = await newPerson(stack, 'svc-env');
  const issued = await stack.accounts.keys.createProjectKey({
    project: who.slug,
    workspace: who.user.workspace,
    level: 'VIEWER',
    name: 'ci',
  });
  const configDir = await tempDir('env');
  const r = await runToEnd(BIN.svc, ['call', 'svc_help', '--project', who.slug, '--json'], {
    ...envFor(configDir),
    SVC_API_KEY: issued.key,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!r.stdout.includes(issued.key) && !r.stderr.includes(issued.key));
  const bad = await runToEnd(BIN.svc, ['call', 'svc_help', '--project', who.slug], { ...envFor(configDir), SVC_API_KEY: 'svc-notakey' });
  assert.equal(bad.code, 3);
  assert.match(bad.stderr, /SVC_API_KEY does not hold an svc key/);
  const wrongProject = await runToEnd(BIN.svc, ['call', 'svc_help', '--project', 'no-such-project'], {
    ...envFor(configDir),
    SVC_API_KEY: issued.key,
  });
  assert.equal(wrongProject.code, 3);
  assert.match(wrongProject.stderr, /Invalid API key/);
});
