/**
 * Every dashboard page, and the second-factor pages in its frame, at desktop (1280×800) and phone
 * (390×844) size, each checked with axe-core (WCAG 2.1 A/AA, best practices and WCAG 2.2 AA's
 * target-size) and saved as docs/screenshots/<page>-<size>.png for a reviewer to look at
 * (docs/dashboard.md "Screenshots"). Seeded as a person meets it: a workspace with projects `demo`
 * (keys, a pending access request, a member, some traffic, and an upstream MCP server with a
 * changed and a new tool) and `acme-bot` (nothing yet), so both the full lists and the empty states
 * are drawn.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { User } from '@svc/accounts';
import { screenshotAt, signInOnPage, startStackAndBrowser, stopStackAndBrowser } from '../auth/browser.ts';
import { axeViolations } from '../support/axe.ts';
import { PASSWORD, type Stack } from '../support/stack.ts';
import { noteTools, startSdkV1Upstream, type TestUpstream } from '../support/upstream-servers.ts';

const DIR = resolve(import.meta.dirname, '../../docs/screenshots');
const SIZES = [
  { tag: 'desktop', viewport: { width: 1280, height: 800 } },
  { tag: 'phone', viewport: { width: 390, height: 844 } },
] as const;

let stack: Stack;
let browser: Browser;
let owner: User;
let upstream: TestUpstream;
const EMAIL = 'ada@example.com';

function base32(s: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of s.replace(/[\s=]/g, '').toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  return Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
}
/** RFC 6238 (HMAC-SHA-1, 30 s, 6 digits) with RFC 4226 §5.3's truncation. */
function totp(secret: string): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000)));
  const mac = createHmac('sha1', base32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

async function call(key: string, slug: string, tool: string): Promise<void> {
  const res = await fetch(`${stack.baseUrl}/mcp/${slug}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: {} } }),
  });
  await res.body?.cancel();
}

/**
 * `demo`'s upstream server `notes` (docs/upstream-servers.md), added over REST with a credential;
 * then the server changes one tool and adds another, and a refresh shows them changed and new.
 */
async function seedUpstream(userId: string): Promise<void> {
  upstream = await startSdkV1Upstream({ json: true });
  const key = (await stack.accounts.keys.createUserKey({ userId })).key;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.baseUrl}/api/v1/projects/demo/upstreams${path}`, {
      method,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    assert.ok(res.ok, `${method} upstreams${path}: ${res.status} ${await res.text()}`);
  };
  await api('POST', '', { name: 'notes', url: upstream.url, credential: { header: 'X-Api-Key', value: 'sk_screenshot_only' } });
  const tools = noteTools().map((t) =>
    t.name === 'delete_note' ? { ...t, description: 'Deletes a note and its history', annotations: { destructiveHint: false } } : t,
  );
  tools.push({ name: 'export_notes', description: 'Exports every note as Markdown', inputSchema: { type: 'object', properties: {} } });
  upstream.setTools(tools);
  await api('POST', '/notes/refresh');
}

before(async () => {
  // The upstream server is on loopback, which svc reaches only when the operator allows it.
  ({ stack, browser } = await startStackAndBrowser({ UPSTREAM_ALLOWED_PRIVATE: '127.0.0.1/32' }));
  await mkdir(DIR, { recursive: true });
  owner = await stack.accounts.users.create({ emailVerified: true, email: EMAIL, password: PASSWORD });
  const workspace = owner.workspace;
  for (const slug of ['acme-bot', 'demo']) await stack.accounts.workspaces.createProject({ slug, workspace });
  const key = (name: string, level: 'VIEWER' | 'EDITOR' | 'ADMIN', days: number | undefined) =>
    stack.accounts.keys.createProjectKey({
      project: 'demo',
      workspace,
      name,
      level,
      ...(days ? { expiresInSeconds: days * 86_400 } : {}),
    });
  const ci = await key('ci deploy', 'EDITOR', 90);
  await key('nightly export', 'VIEWER', 5);
  await key('support bot', 'ADMIN', undefined);
  for (let i = 0; i < 3; i++) await call(ci.key, 'demo', 'svc_help');
  const bea = await stack.accounts.users.create({ emailVerified: true, email: 'bea@example.com', password: PASSWORD });
  const cy = await stack.accounts.users.create({ emailVerified: true, email: 'cy@example.com', password: PASSWORD });
  await stack.accounts.workspaces.setRole('demo', cy.id, 'EDITOR');
  await stack.accounts.accessRequests.create(
    {
      project: 'demo',
      requester: { type: 'user', id: bea.id, label: bea.email },
      requestedLevel: 'EDITOR',
      reason: 'to file support tickets from the agent',
    },
    { source: '127.0.0.1', requestId: 'screenshots-seed' },
  );
  await seedUpstream(owner.id);
});
after(async () => {
  await upstream.close();
  await stopStackAndBrowser(stack, browser);
});

/** axe at this size, then the screenshot; the page's violations fail the test after the picture is kept. */
async function capture(page: Page, name: string, tag: string, problems: string[]): Promise<void> {
  const violations = await axeViolations(page, { wcag22: true });
  await screenshotAt(page, join(DIR, `${name}-${tag}.png`));
  if (violations.length) problems.push(`${name}-${tag}:\n${violations.join('\n')}`);
}

for (const { tag, viewport } of SIZES) {
  test(`every dashboard page at ${tag} size: axe-core, and a screenshot in docs/screenshots`, async () => {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const problems: string[] = [];
    const at = async (path: string, name: string) => {
      const res = await page.goto(`${stack.authUrl}${path}`);
      assert.ok(res && res.status() < 500, `${path}: ${res?.status()}`);
      await page.waitForSelector('main h1');
      await capture(page, name, tag, problems);
    };
    try {
      // The other size's run set up an authenticator: each run starts from none, as a new person does.
      await stack.accounts.factors.removeTotp(owner.id);
      await page.goto(`${stack.authUrl}/dashboard/projects/demo/keys`);
      await signInOnPage(page, EMAIL, PASSWORD);
      await page.waitForSelector('main h1');
      const ws = owner.workspace;

      await at('/dashboard/projects/demo/keys', 'keys');
      await page.click('tr:has-text("ci deploy") details.menu summary');
      await capture(page, 'keys-menu-open', tag, problems);
      await at('/dashboard/projects/demo/keys?status=all&q=ci', 'keys-filtered');
      await at('/dashboard/projects/demo/keys/new', 'key-new');
      const ci = (await stack.accounts.keys.listForProject('demo')).find((k) => k.name === 'ci deploy')!;
      for (const action of ['roll', 'revoke', 'disable', 'limit', 'note', 'ips'])
        await at(`/dashboard/projects/demo/keys/${ci.id}/${action}`, `key-${action}`);
      await at('/dashboard/projects/acme-bot/keys', 'keys-empty');
      await at('/dashboard/projects/demo/requests', 'requests');
      await at('/dashboard/projects/acme-bot/requests', 'requests-empty');
      await at('/dashboard/projects/demo/members', 'members');
      await at('/dashboard/projects/demo/upstreams', 'upstreams');
      await page.click('tr:has-text("notes") details.menu summary');
      await capture(page, 'upstreams-menu-open', tag, problems);
      await at('/dashboard/projects/acme-bot/upstreams', 'upstreams-empty');
      await at('/dashboard/projects/demo/upstreams/notes', 'upstream');
      await at('/dashboard/projects/demo/upstreams/notes/tools/delete_note', 'upstream-tool-change');
      await at('/dashboard/projects/demo/upstreams/notes/remove', 'upstream-remove');
      await at('/dashboard/projects/new', 'project-new');
      await at(`/dashboard/workspaces/${ws}/service-accounts?project=demo`, 'service-accounts-empty');
      await at(`/dashboard/workspaces/${ws}/usage?project=demo`, 'usage');
      await at(`/dashboard/workspaces/${ws}/audit?project=demo`, 'audit');
      await at(`/dashboard/workspaces/${ws}/sso?project=demo`, 'sso');
      await at(`/dashboard/workspaces/${ws}/webhooks?project=demo`, 'webhooks-empty');
      await at('/dashboard/account', 'account');
      await at('/dashboard/account/password', 'password');

      // The second factor, in the dashboard's frame: from none, through a mistyped code, to the recovery codes.
      await at('/factors', 'factors');
      await at('/factors/totp', 'factor-totp');
      await page.fill('#code', '000000');
      await page.click('form.enrol button[type=submit]');
      await page.waitForSelector('main p.error');
      await capture(page, 'factor-totp-mistyped', tag, problems);
      const secret = ((await page.textContent('#secret')) ?? '').replace(/\s/g, '');
      await page.fill('#code', totp(secret));
      await page.click('form.enrol button[type=submit]');
      await page.waitForSelector('#recovery-codes');
      await capture(page, 'factor-recovery-codes', tag, problems);
      await at('/factors', 'factors-on');
      await at(`/factors/step-up?return=${encodeURIComponent('/dashboard/account')}`, 'factor-step-up');
      await at('/factors/passkey', 'factor-passkey');
    } finally {
      await context.close();
    }
    assert.deepEqual(problems, [], `axe-core violations:\n${problems.join('\n')}`);
  });
}
