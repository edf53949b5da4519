/**
 * `create-svc` end to end in a temporary project folder: the person signs up in chromium on the
 * way and approves the project; the written key calls the gateway; a second run reuses the
 * project, replaces (and revokes) the key and adds no line twice.
 */
import assert from 'node:assert/strict';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { CREATE_SVC_KEY_TTL_SECONDS } from '@svc/accounts';
import { parseCredential } from '@svc/credentials';
import { waitFor } from '@svc/testkit';
import { approveDevice, consent, startStackAndBrowser, stopStackAndBrowser, shot } from '../auth/browser.ts';
import { mcpCall } from '../auth/gateway-call.ts';
import { PASSWORD, type Stack } from '../support/stack.ts';
import { BIN, start, tempDir } from './support.ts';

let stack: Stack;
let browser: Browser;

before(async () => ({ stack, browser } = await startStackAndBrowser()));
after(() => stopStackAndBrowser(stack, browser));

const env = (home: string) => ({
  SVC_BASE_URL: stack.baseUrl,
  SVC_AUTH_URL: stack.authUrl,
  HOME: home,
  SVC_CONFIG_DIR: join(home, 'config'),
});

async function keyOf(dir: string): Promise<string> {
  const line = (await readFile(join(dir, '.env'), 'utf8')).split('\n').find((l) => l.startsWith('SVC_API_KEY='));
  return line?.slice('SVC_API_KEY='.length) ?? '';
}

test('create-svc: sign up on the way, .env/.gitignore/.mcp.json written, the key works; a second run reuses the project', async () => {
  const dir = await tempDir('project');
  const home = await tempDir('home');
  await writeFile(join(dir, '.env'), 'DATABASE_URL=postgres://localhost/app\n');
  await writeFile(join(dir, '.gitignore'), 'node_modules');
  await writeFile(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { other: { type: 'stdio', command: 'other-server' } } }));
  const email = `create-${Math.random().toString(36).slice(2, 8)}@example.com`;

  const first = start(BIN.createSvc, ['--dir', dir], env(home));
  const [, uri] = await first.waitForStderr(/Open\s+(\S+)/);
  assert.match(uri!, /\/device\?code=/, 'create-svc sends the person to the prefilled code');
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(uri!);
  await page.click('button[name=confirm]');
  await page.waitForSelector('form[action="/signin"]');
  await page.click('a[href^="/signup"]');
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await shot(page, 'create-svc-cli-01-signup');
  await page.click('form[action="/signup"] button[type=submit]');
  // The same answer whether or not the address is new (docs/auth-service.md "Sign-up and reset
  // reveal no accounts"); the address is confirmed (here by the store, as the mailed link does), then the person signs in.
  await page.waitForSelector('text=Check your email');
  const signedUp = await waitFor(() => stack.accounts.users.findByEmail(email), { timeout: 5000, message: 'the new account' });
  await stack.accounts.users.markEmailVerified(signedUp.id);
  await page.click('a[href^="/signin"]');
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await page.click('form[action="/signin"] button[type=submit]');
  await page.waitForSelector('form[action$="/consent"]');
  // The page names the key's level and expiry before the person approves.
  assert.match(await page.innerText('main'), /The key has level EDITOR \(read and change, not manage\) and expires after 90 days/);
  await consent(page, { kind: 'provision' }, 'create-svc-cli-02-consent');
  await page.waitForSelector('text=Device connected');
  await context.close();
  const r1 = await first.exit;
  assert.equal(r1.code, 0, r1.stderr);

  const key1 = await keyOf(dir);
  assert.equal(parseCredential(key1)?.kind, 'project_key');
  // A finite key: EDITOR, 90 days (docs/auth-service.md "create-svc's key"), and create-svc says so.
  const record = await stack.accounts.keys.findByHash(stack.accounts.keys.hash(key1));
  assert.equal(record?.level, 'EDITOR');
  assert.ok(record?.expiresAt, 'the key expires');
  assert.equal(record.expiresAt - record.createdAt, CREATE_SVC_KEY_TTL_SECONDS * 1000);
  assert.equal(CREATE_SVC_KEY_TTL_SECONDS, 90 * 86_400);
  const expiry = new Date(record.expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
  assert.match(r1.stdout, new RegExp(`The key acts at EDITOR and expires ${expiry}: run create-svc again before then`));
  const user = await stack.accounts.users.findByEmail(email);
  assert.ok(user);
  const [slug] = await stack.accounts.workspaces.projectsOf(user.workspace);
  assert.ok(slug);
  // Named after the folder (svc-cli-project-XXXXXX): its name, and a slug made from it.
  assert.equal((await stack.accounts.workspaces.getProject(slug))?.name, basename(dir));
  assert.equal(
    slug,
    basename(dir)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-'),
  );
  assert.match(r1.stdout, new RegExp(`Project ${slug} is ready: ${stack.baseUrl}/mcp/${slug}`));

  // .env: the other line kept, the key added, mode 0600.
  assert.equal(await readFile(join(dir, '.env'), 'utf8'), `DATABASE_URL=postgres://localhost/app\nSVC_API_KEY=${key1}\n`);
  assert.equal((await stat(join(dir, '.env'))).mode & 0o777, 0o600);
  assert.equal(await readFile(join(dir, '.gitignore'), 'utf8'), 'node_modules\n.env\n');
  const mcp = JSON.parse(await readFile(join(dir, '.mcp.json'), 'utf8')) as {
    mcpServers: Record<string, { url?: string; headers?: Record<string, string> }>;
  };
  assert.deepEqual(Object.keys(mcp.mcpServers).sort(), ['other', `svc-${slug}`]);
  assert.equal(mcp.mcpServers[`svc-${slug}`]?.url, `${stack.baseUrl}/mcp/${slug}`);
  assert.deepEqual(mcp.mcpServers[`svc-${slug}`]?.headers, { 'X-API-Key': '${SVC_API_KEY}' });

  // The written key calls the gateway.
  const call = await mcpCall(stack.baseUrl, slug, key1);
  assert.equal(call.status, 200, JSON.stringify(call.body));

  // Second run: same project, key replaced, old key revoked, no duplicate lines.
  const second = start(BIN.createSvc, ['--dir', dir, '--json'], env(home));
  const [, uri2] = await second.waitForStderr(/Open\s+(\S+)/);
  const [, code2] = await second.waitForStderr(/shows ([A-Z]{4}-\d{4})/);
  const done = await approveDevice(browser, {
    verificationUri: '',
    verificationUriComplete: uri2!,
    userCode: code2!,
    email,
    password: PASSWORD,
    approval: { kind: 'provision' },
    name: 'create-svc-cli-again',
    typeCode: false,
  });
  assert.match(done, /Device connected/);
  const r2 = await second.exit;
  assert.equal(r2.code, 0, r2.stderr);
  const out = JSON.parse(r2.stdout) as { project_slug: string; previous_key: string };
  assert.equal(out.project_slug, slug);
  assert.equal(out.previous_key, 'revoked');
  assert.deepEqual(await stack.accounts.workspaces.projectsOf(user.workspace), [slug]);
  const key2 = await keyOf(dir);
  assert.notEqual(key2, key1);
  const envText = await readFile(join(dir, '.env'), 'utf8');
  assert.equal(envText.match(/SVC_API_KEY=/g)?.length, 1);
  assert.equal(await readFile(join(dir, '.gitignore'), 'utf8'), 'node_modules\n.env\n');
  assert.equal((await mcpCall(stack.baseUrl, slug, key2)).status, 200);
  assert.equal((await mcpCall(stack.baseUrl, slug, key1)).status, 401, 'the replaced key is revoked');

  // No key in any output, and in no file but .env.
  for (const r of [r1, r2])
    for (const k of [key1, key2]) assert.ok(!r.stdout.includes(k) && !r.stderr.includes(k), 'create-svc printed a key');
  for (const base of [dir, home]) {
    for (const entry of await readdir(base, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile()) continue;
      const path = join(entry.parentPath, entry.name);
      if (path === join(dir, '.env')) continue;
      const text = await readFile(path, 'utf8');
      assert.ok(!text.includes(key1) && !text.includes(key2), `${path} holds a key`);
    }
  }
});

test('create-svc in a folder that does not exist, or with an unknown option', async () => {
  const home = await tempDir('home');
  const missing = start(BIN.createSvc, ['--dir', join(home, 'nope')], env(home));
  const r = await missing.exit;
  assert.equal(r.code, 2);
  assert.match(r.stderr, /is not a folder/);
  const unknown = await start(BIN.createSvc, ['--frobnicate'], env(home)).exit;
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /Unknown option '--frobnicate'/);
});
