/**
 * Project > Upstream servers in chromium (docs/dashboard.md, docs/upstream-servers.md "From the
 * dashboard"), against a real upstream MCP server (the SDK's, verifying svc's tokens with
 * @svc/upstream-auth) on loopback, which the operator allows with UPSTREAM_ALLOWED_PRIVATE: an
 * admin whose second factor is old adds a server with a credential, is sent to step up and comes
 * back to the form; the server's tools are listed and their rows act at the gateway (a tool's
 * level lowered opens it to a VIEWER key, a tool turned off leaves tools/list); a changed tool is
 * reviewed old beside new and accepted; removal asks first. The credential's value never appears
 * in a page. Checked with axe-core (WCAG 2.2 AA's target size included) at desktop (1280×800)
 * and phone (390×844) sizes; screenshots under test-output/screenshots/dashboard-upstream*.png.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually } from '@svc/testkit';
import { shot, signInOnPage, startStackAndBrowser, stopStackAndBrowser } from '../auth/browser.ts';
import { axeViolations } from '../support/axe.ts';
import { newPerson, PASSWORD, type Stack } from '../support/stack.ts';
import { noteTools, startSdkV1Upstream, type TestUpstream } from '../support/upstream-servers.ts';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** 20 bytes, base32: RFC 4226 §4 asks for at least 128 bits. */
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
/** The upstream's own API key, given to svc as the server's credential: no page may show it. */
const CREDENTIAL = 'sk_live_upstream_credential_7f3a9c1e5b';

let stack: Stack;
let browser: Browser;
const upstreams: TestUpstream[] = [];

before(async () => {
  // The upstream is on loopback, which svc reaches only when the operator allows it (docs/upstream-servers.md).
  ({ stack, browser } = await startStackAndBrowser({ UPSTREAM_ALLOWED_PRIVATE: '127.0.0.1/32' }));
});
after(async () => {
  for (const u of upstreams) await u.close();
  await stopStackAndBrowser(stack, browser);
});

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

/** axe at this size (WCAG 2.2 AA target size too), then the screenshot; the page never holds the credential. */
async function checkPage(page: Page, name: string): Promise<void> {
  const violations = await axeViolations(page, { wcag22: true });
  await shot(page, `dashboard-${name}`);
  assert.deepEqual(violations, [], `axe on ${name}:\n${violations.join('\n')}`);
  assert.ok(!(await page.content()).includes(CREDENTIAL), `${name}: the credential's value is in the page`);
}

async function signedIn(email: string, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(`${stack.authUrl}/dashboard`);
  await signInOnPage(page, email, PASSWORD);
  await page.waitForSelector('main h1');
  return { context, page };
}

/** Gives the person an authenticator and records on their sessions that it was last used `minutesAgo`. */
async function factorUsed(userId: string, minutesAgo: number): Promise<void> {
  if (!(await stack.accounts.factors.hasAny(userId))) {
    await stack.accounts.factors.beginTotp(userId, TOTP_SECRET);
    assert.ok(Array.isArray(await stack.accounts.factors.confirmTotp(userId, 1)));
  }
  for (const key of await stack.client.keys('svc:oidc:web-session:*'))
    if ((await stack.client.hget(key, 'userId')) === userId)
      await stack.client.hset(key, 'factorAt', String(Date.now() - minutesAgo * 60_000));
}

let rpcId = 1;
/** The names a key is offered in the project's tools/list at the gateway. */
async function listed(key: string, slug: string): Promise<string[]> {
  const res = await fetch(`${stack.baseUrl}/mcp/${slug}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: rpcId++, method: 'tools/list', params: {} }),
  });
  const body = (await res.json()) as { result?: { tools?: { name: string }[] } };
  return (body.result?.tools ?? []).map((t) => t.name).filter((n) => n.includes('__'));
}

/**
 * The gateway offers exactly `names` within a second: the change was made by the auth-service, and
 * each gateway drops its copy of the project's tools when the invalidation message reaches it.
 */
async function gatewayOffers(key: string, slug: string, names: string[], what: string): Promise<void> {
  await eventually(async () => assert.deepEqual((await listed(key, slug)).sort(), names), { timeout: 1000, message: what });
}

const upstreamsKey = (slug: string) => `svc:project:${slug}:upstreams`;
const mainText = async (page: Page) => ((await page.locator('main').textContent()) ?? '').replace(/\s+/g, ' ');

/** Fills and sends the add form as a person does. */
async function addServer(page: Page, name: string, url: string): Promise<void> {
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('URL', { exact: true }).fill(url);
  await page.getByLabel('Timeout of one call').selectOption('5');
  await page.getByLabel('Header').fill('X-Api-Key');
  await page.getByLabel('Value').fill(CREDENTIAL);
  await page.getByRole('button', { name: 'Add server' }).last().click();
}

test('an admin adds a server after stepping up, sets its tools, reviews a change and removes it; the credential is never shown', async () => {
  const owner = await newPerson(stack, 'dash-up');
  const server = await startSdkV1Upstream({ json: true, verify: { issuer: stack.baseUrl } });
  upstreams.push(server);
  const viewerKey = (
    await stack.accounts.keys.createProjectKey({ project: owner.slug, workspace: owner.user.workspace, name: 'reader', level: 'VIEWER' })
  ).key;
  const { context, page } = await signedIn(owner.email);
  try {
    await page.getByRole('link', { name: 'Upstream servers' }).click();
    assert.equal(await page.locator('main h1').textContent(), 'Upstream servers');
    assert.match(await mainText(page), /No upstream servers yet\.\s*An upstream server is an MCP server of your own/);
    await checkPage(page, 'upstreams-empty');

    // A factor used 30 minutes ago is too old for addUpstream (stepUp: 'always'): step up, then back to the form.
    await factorUsed(owner.user.id, 30);
    await addServer(page, 'notes', server.url);
    await page.waitForURL(/\/factors\/step-up\?return=/);
    assert.equal(await page.locator('main h1').textContent(), 'Confirm it is you');
    assert.equal(await stack.client.hlen(upstreamsKey(owner.slug)), 0, 'nothing registered before the step-up');
    await page.fill('#code', totp(TOTP_SECRET));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL(new RegExp(`/dashboard/projects/${owner.slug}/upstreams$`));

    await addServer(page, 'notes', server.url);
    await page.waitForURL(new RegExp(`/upstreams/notes\\?done=upstream-added$`));
    assert.equal(await page.locator('main h1').textContent(), 'Upstream server notes');
    const tools = page.getByRole('region', { name: 'Tools' });
    for (const name of ['notes__read_notes', 'notes__write_note', 'notes__delete_note', 'notes__count_with_progress'])
      assert.match((await tools.textContent()) ?? '', new RegExp(name));
    assert.match(await mainText(page), /sent in the X-Api-Key header; its value is never shown/);
    await checkPage(page, 'upstream-server');
    // The server received the credential and svc's token (verified by @svc/upstream-auth), never a caller's key.
    assert.ok(server.calls.some((c) => c.headers['x-api-key'] === CREDENTIAL && c.authInfo?.extra?.['subject'] === 'svc:gateway'));
    await gatewayOffers(viewerKey, owner.slug, ['notes__read_notes'], 'a VIEWER key: the read-only tool only');

    // A refused add (the name is taken) shows the form again with the reason at the name, and no credential.
    await page.getByRole('link', { name: 'All upstream servers' }).click();
    await addServer(page, 'notes', server.url);
    await page.waitForSelector('#name-error');
    assert.match((await page.textContent('#name-error')) ?? '', /already has an upstream server named notes/);
    assert.equal(await page.inputValue('#upstream-credential-value'), '');
    await checkPage(page, 'upstreams-refused');
    // A header without its value: the service's refusal of the credential, told under the pair.
    await page.getByLabel('Name', { exact: true }).fill('other');
    await page.getByLabel('Value').fill('');
    await page.getByRole('button', { name: 'Add server' }).last().click();
    await page.waitForSelector('#credential-error');
    assert.match((await page.textContent('#credential-error')) ?? '', /credential value must be 1 to/);
    assert.equal(await page.getAttribute('#upstream-credential-header', 'aria-invalid'), 'true');
    assert.equal(await stack.client.hexists(upstreamsKey(owner.slug), 'u:other'), 0);
    await page.getByRole('link', { name: 'Upstream servers' }).click();
    assert.equal(await page.locator('tbody tr').count(), 1);
    await checkPage(page, 'upstreams');

    // Lower write_note to VIEWER: the VIEWER key is offered it within a second.
    await page.getByRole('link', { name: 'notes', exact: true }).click();
    await page.getByLabel('Level of notes__write_note', { exact: true }).selectOption('VIEWER');
    await page.getByRole('button', { name: 'Save the level of notes__write_note' }).click();
    await page.waitForSelector('.flash.ok');
    assert.match(await mainText(page), /Tool's level saved/);
    await gatewayOffers(viewerKey, owner.slug, ['notes__read_notes', 'notes__write_note'], 'the lowered tool to a VIEWER key');

    // Turn read_notes off: no longer offered.
    await page.getByRole('button', { name: 'Turn off notes__read_notes' }).click();
    await page.waitForSelector('.flash.ok');
    assert.match(await mainText(page), /Tool turned off/);
    await gatewayOffers(viewerKey, owner.slug, ['notes__write_note'], 'the tool turned off to leave tools/list');
    assert.equal(await page.getByRole('button', { name: 'Turn on notes__read_notes' }).count(), 1);

    // Every call of write_note waits for an approval (docs/approvals.md): set on its page, held at
    // the gateway, listed on the Approvals page and approved there.
    await page.getByRole('link', { name: 'notes__write_note', exact: true }).click();
    // What a call spends of its caller's tool budget (docs/operations.md "Limits for agents"): saved
    // on the page; out of bounds, the server refuses it whatever the browser lets through.
    const toolPage = page.url();
    const cost = page.getByLabel("What one call of notes__write_note spends of its caller's tool budget", { exact: true });
    await cost.fill('5');
    await page.getByRole('button', { name: 'Save the cost of notes__write_note' }).click();
    await page.waitForSelector('.flash.ok');
    assert.match(await mainText(page), /cost saved/);
    await page.goto(toolPage);
    assert.equal(await cost.inputValue(), '5');
    await cost.evaluate((el) => {
      const input = el as HTMLInputElement;
      input.form!.noValidate = true;
      input.value = '1001';
    });
    await page.getByRole('button', { name: 'Save the cost of notes__write_note' }).click();
    assert.match(await mainText(page), /cost is a whole number from 1 to 1000/);
    await page.goto(toolPage);
    assert.equal(await cost.inputValue(), '5', 'a refused cost changes nothing');
    await page.getByLabel('Which calls of notes__write_note wait for an approval', { exact: true }).selectOption('all');
    await page.getByRole('button', { name: 'Save the approval rule of notes__write_note' }).click();
    await page.waitForSelector('.flash.ok');
    assert.match(await mainText(page), /approval rule saved/);
    await eventually(async () => {
      const res = await fetch(`${stack.baseUrl}/mcp/${owner.slug}`, {
        method: 'POST',
        headers: { 'x-api-key': viewerKey, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: rpcId++,
          method: 'tools/call',
          params: { name: 'notes__write_note', arguments: { title: 'held', text: 'by the page' } },
        }),
      });
      const body = (await res.json()) as { error?: { data?: { gate?: string } } };
      assert.equal(body.error?.data?.gate, 'approval', JSON.stringify(body));
    }, 'the gateway to hold write_note');
    await page.getByRole('link', { name: 'Approvals' }).click();
    assert.match(await mainText(page), /notes__write_note/);
    assert.match(await mainText(page), /"title": "held"/);
    await checkPage(page, 'approvals');
    await page.getByRole('button', { name: 'Approve' }).first().click();
    await page.waitForSelector('.flash.ok');
    assert.match(await mainText(page), /Call approved/);
    await page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/upstreams/notes`);

    // The server changes delete_note: after a refresh it is offered as it was until accepted, old beside new.
    const changed = noteTools().map((t) =>
      t.name === 'delete_note' ? { ...t, description: 'Deletes a note, and its history', annotations: { destructiveHint: false } } : t,
    );
    server.setTools(changed);
    await page.getByRole('button', { name: 'Read its tools again' }).click();
    await page.waitForSelector('.flash.ok');
    assert.match(await mainText(page), /changed ones are offered as they were until you accept the change/);
    await checkPage(page, 'upstream-server-review');
    await page.getByRole('link', { name: 'Review change to notes__delete_note' }).click();
    const [offered, now] = [
      page.getByRole('region', { name: 'Offered now' }),
      page.getByRole('region', { name: 'What the server says now' }),
    ];
    assert.match((await offered.textContent()) ?? '', /Deletes a note(?!, and)/);
    assert.match((await now.textContent()) ?? '', /Deletes a note, and its history.*destructiveHint.*false/s);
    await checkPage(page, 'upstream-tool-change');
    await page.getByRole('button', { name: 'Accept change' }).click();
    await page.waitForSelector('.flash.ok');
    const row = page.locator('tr', { hasText: 'notes__delete_note' });
    assert.match((await row.textContent()) ?? '', /Deletes a note, and its history\s*listed/);

    // Remove, from the list's row menu: the confirmation first changes nothing.
    await page.getByRole('link', { name: 'All upstream servers' }).click();
    await page.locator('details.menu summary').click();
    await page.getByRole('link', { name: 'Remove' }).click();
    assert.match(await mainText(page), /Its 4 tools are no longer offered/);
    await checkPage(page, 'upstream-remove');
    assert.equal(await stack.client.hexists(upstreamsKey(owner.slug), 'u:notes'), 1, 'the confirmation page changed nothing');
    await page.getByRole('button', { name: 'Remove server' }).click();
    await page.waitForSelector('.flash.ok');
    assert.match(await mainText(page), /Server removed.*No upstream servers yet/);
    await gatewayOffers(viewerKey, owner.slug, [], 'no tool of the removed server');

    const actions = (await stack.accounts.audit.page(owner.user.workspace, { limit: 50 })).entries.map((e) => e.action);
    for (const action of ['upstream.added', 'upstream.tool_changed', 'upstream.refreshed', 'upstream.removed'])
      assert.ok((actions as string[]).includes(action), `${action} in the audit log: ${actions.join(', ')}`);
  } finally {
    await context.close();
  }
});

test('the pages read on a phone, and a member who is not an admin gets no upstream page', async () => {
  const owner = await newPerson(stack, 'dash-up-phone');
  const server = await startSdkV1Upstream({ json: true });
  upstreams.push(server);
  const phone = await signedIn(owner.email, PHONE);
  try {
    const base = `${stack.authUrl}/dashboard/projects/${owner.slug}/upstreams`;
    await phone.page.goto(base);
    await checkPage(phone.page, 'upstreams-empty-phone');
    // No factor: nothing to step up with (docs/auth-service.md "Step-up").
    await addServer(phone.page, 'notes', server.url);
    await phone.page.waitForURL(/\/upstreams\/notes\?done=upstream-added$/);
    await checkPage(phone.page, 'upstream-server-phone');
    server.setTools(noteTools().map((t) => (t.name === 'read_notes' ? { ...t, description: 'Lists the notes, now with dates' } : t)));
    await phone.page.getByRole('button', { name: 'Read its tools again' }).click();
    await phone.page.waitForSelector('.flash.ok');
    await phone.page.getByRole('link', { name: 'Review change to notes__read_notes' }).click();
    await checkPage(phone.page, 'upstream-tool-change-phone');
    await phone.page.goto(base);
    await phone.page.locator('details.menu summary').click();
    await checkPage(phone.page, 'upstreams-menu-phone');
  } finally {
    await phone.context.close();
  }

  const member = await stack.accounts.users.create({
    emailVerified: true,
    email: `up-editor-${owner.slug}@example.com`,
    password: PASSWORD,
  });
  await stack.accounts.workspaces.setRole(owner.slug, member.id, 'EDITOR');
  const editor = await signedIn(member.email);
  try {
    const res = await editor.page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/upstreams`);
    assert.equal(res?.status(), 403);
    assert.match((await editor.page.textContent('main')) ?? '', /Only the project's admins can see upstream servers/);
    const one = await editor.page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/upstreams/notes`);
    assert.equal(one?.status(), 403);
  } finally {
    await editor.context.close();
  }
});
