/**
 * The CLI as an adopter gets it (docs/publishing.md "@svc/cli"): packed, installed with
 * `npm install -g` into a fresh prefix outside the checkout, and run from there with nothing of
 * the repository around it: `svc --version`, `svc login` approved in chromium, commands with the
 * stored key, and `create-svc` writing a project folder's files.
 */
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { parseCredential } from '@svc/credentials';
import { approveDevice, startStackAndBrowser, stopStackAndBrowser } from '../auth/browser.ts';
import { mcpCall } from '../auth/gateway-call.ts';
import { runToEnd, start, tempDir } from '../cli/support.ts';
import { newPerson, PASSWORD, type Stack } from '../support/stack.ts';
import { NODE_PATH, npm, pack } from './support.ts';

let stack: Stack;
let browser: Browser;
let prefix: string;

before(async () => {
  ({ stack, browser } = await startStackAndBrowser());
  prefix = await tempDir('prefix');
  const tarball = await pack('cli', await tempDir('pack'));
  await npm(['install', '--global', '--prefix', prefix, tarball], prefix, join(prefix, '.npm'));
});
after(() => stopStackAndBrowser(stack, browser));

const bin = (name: string) => join(prefix, 'bin', name);

/** What an adopter's shell has: Node on PATH, a home, the servers named by the variables. */
const envFor = (home: string): Record<string, string> => ({
  PATH: NODE_PATH,
  HOME: home,
  SVC_BASE_URL: stack.baseUrl,
  SVC_AUTH_URL: stack.authUrl,
  SVC_CONFIG_DIR: join(home, 'config'),
});

test('the package holds the built bins only, and svc --version names its version', async () => {
  const installed = join(prefix, 'lib/node_modules/@svc/cli');
  const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
    version: string;
    bin: Record<string, string>;
    dependencies?: Record<string, string>;
  };
  assert.deepEqual(manifest.bin, { svc: './dist/svc.js', 'create-svc': './dist/create-svc.js' });
  assert.equal(manifest.dependencies, undefined, 'everything it imports is bundled');
  assert.deepEqual((await readdir(installed)).sort(), ['LICENSE', 'README.md', 'dist', 'package.json']);
  assert.deepEqual((await readdir(join(installed, 'dist'))).sort(), ['create-svc.js', 'svc.js']);
  for (const file of ['svc.js', 'create-svc.js']) {
    const text = await readFile(join(installed, 'dist', file), 'utf8');
    assert.ok(text.startsWith('#!/usr/bin/env node\n'), `${file} starts with its interpreter line`);
    assert.doesNotMatch(text, /from ["']@svc\//, `${file} imports no workspace package`);
  }

  const home = await tempDir('version');
  const version = await runToEnd(bin('svc'), ['--version'], envFor(home), home);
  assert.equal(version.code, 0, version.stderr);
  assert.equal(version.stdout.trim(), manifest.version);
  const help = await runToEnd(bin('create-svc'), ['--help'], envFor(home), home);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^create-svc \S+: connect this project folder to svc/);
});

test('the installed svc: login in the browser, then whoami and keys with the stored key', async () => {
  const who = await newPerson(stack, 'pkg-cli');
  const home = await tempDir('login');
  const env = envFor(home);
  const login = start(bin('svc'), ['login'], env, home);
  const [, uri] = await login.waitForStderr(/Open\s+(\S+)/);
  const [, code] = await login.waitForStderr(/Type\s+([A-Z]{4}-\d{4})/);
  const page = await approveDevice(browser, {
    verificationUri: uri!,
    verificationUriComplete: '',
    userCode: code!,
    email: who.email,
    password: PASSWORD,
    approval: { kind: 'personal' },
    name: 'package-svc-login',
    typeCode: true,
  });
  assert.match(page, /Device connected/);
  const loggedIn = await login.exit;
  assert.equal(loggedIn.code, 0, loggedIn.stderr);
  assert.match(loggedIn.stdout, new RegExp(`Signed in as ${who.email}`));

  const whoami = await runToEnd(bin('svc'), ['whoami', '--json'], env, home);
  assert.equal(whoami.code, 0, whoami.stderr);
  assert.equal((JSON.parse(whoami.stdout) as { user: { email: string } }).user.email, who.email);

  const created = await runToEnd(bin('svc'), ['keys', 'create', '--project', who.slug, '--name', 'ci', '--level', 'VIEWER'], env, home);
  assert.equal(created.code, 0, created.stderr);
  assert.equal(parseCredential(created.stdout.trim())?.kind, 'project_key');
  const listed = await runToEnd(bin('svc'), ['keys', 'list', '--project', who.slug, '--json'], env, home);
  assert.equal(listed.code, 0, listed.stderr);
  const { keys } = JSON.parse(listed.stdout) as { keys: { name: string; level: string }[] };
  assert.deepEqual(
    keys.map((k) => [k.name, k.level]),
    [['ci', 'VIEWER']],
  );
});

test('the installed create-svc writes .env, .gitignore and .mcp.json, and the key calls the gateway', async () => {
  const who = await newPerson(stack, 'pkg-create');
  const home = await tempDir('create-home');
  const dir = await tempDir('create-project');
  const run = start(bin('create-svc'), ['--dir', dir, '--json'], envFor(home), home);
  const [, uri] = await run.waitForStderr(/Open\s+(\S+)/);
  const [, code] = await run.waitForStderr(/shows ([A-Z]{4}-\d{4})/);
  const page = await approveDevice(browser, {
    verificationUri: '',
    verificationUriComplete: uri!,
    userCode: code!,
    email: who.email,
    password: PASSWORD,
    approval: { kind: 'provision' },
    name: 'package-create-svc',
    typeCode: false,
  });
  assert.match(page, /Device connected/);
  const done = await run.exit;
  assert.equal(done.code, 0, done.stderr);
  const out = JSON.parse(done.stdout) as { project_slug: string; mcp_endpoint: string };
  assert.equal(out.mcp_endpoint, `${stack.baseUrl}/mcp/${out.project_slug}`);

  const key = (await readFile(join(dir, '.env'), 'utf8')).match(/^SVC_API_KEY=(\S+)$/m)?.[1] ?? '';
  assert.equal(parseCredential(key)?.kind, 'project_key');
  assert.equal(await readFile(join(dir, '.gitignore'), 'utf8'), '.env\n');
  const mcp = JSON.parse(await readFile(join(dir, '.mcp.json'), 'utf8')) as { mcpServers: Record<string, { url?: string }> };
  assert.equal(mcp.mcpServers[`svc-${out.project_slug}`]?.url, out.mcp_endpoint);
  assert.equal((await mcpCall(stack.baseUrl, out.project_slug, key)).status, 200);
});
