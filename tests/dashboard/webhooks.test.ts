/**
 * Workspace > Webhooks in chromium (docs/dashboard.md, docs/webhooks.md): the owner adds an
 * endpoint and sees its signing secret once (a reload shows it is gone), sends a test event to a
 * real local receiver (which verifies the signature with the standardwebhooks library) and sees it
 * in the delivery log, and deletes the endpoint after a confirmation; another person gets no page.
 * Checked with axe-core at desktop and phone sizes; screenshots under
 * test-output/screenshots/dashboard-webhooks*.png.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { waitFor } from '@svc/testkit';
import { shot, signInOnPage, startStackAndBrowser, stopStackAndBrowser } from '../auth/browser.ts';
import { axeViolations } from '../support/axe.ts';
import { newPerson, PASSWORD, type Stack } from '../support/stack.ts';

let stack: Stack;
let browser: Browser;
let receiver: Server;
let receiverUrl: string;
const received: { body: string; headers: Record<string, string> }[] = [];

before(async () => {
  // The receiver is on loopback, which webhooks reach only when an operator allows it (docs/webhooks.md).
  ({ stack, browser } = await startStackAndBrowser({ WEBHOOK_ALLOWED_PRIVATE: '127.0.0.1/32' }));
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ body, headers: headersOf(req.headers) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
after(async () => {
  await new Promise((r) => receiver.close(r));
  await stopStackAndBrowser(stack, browser);
});

const headersOf = (h: IncomingHttpHeaders) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]));

async function checkPage(page: Page, name: string): Promise<void> {
  const violations = await axeViolations(page);
  await shot(page, `dashboard-${name}`);
  assert.deepEqual(violations, [], `axe on ${name}:\n${violations.join('\n')}`);
}

async function signedIn(email: string, viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(`${stack.authUrl}/dashboard`);
  await signInOnPage(page, email, PASSWORD);
  await page.waitForSelector('main h1');
  return { context, page };
}

test('the owner adds an endpoint, sees its secret once, sends a test event to a receiver and deletes the endpoint after confirming', async () => {
  const owner = await newPerson(stack, 'dash-wh');
  const ws = owner.user.workspace;
  const { context, page } = await signedIn(owner.email);
  try {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    assert.equal(await page.locator('main h1').textContent(), 'Webhooks');
    await checkPage(page, 'webhooks-empty');

    await page.getByLabel('Endpoint URL').fill(receiverUrl);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    assert.match((await page.locator('main').textContent()) ?? '', /Name at least one event type/, 'no event checked: refused');
    await page.getByLabel('key.created').check();
    await page.getByLabel('member.added').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.locator('#new-key').textContent()) ?? '';
    assert.match(secret, /^whsec_/);
    assert.match(page.url(), /\/webhooks\/reveal\//);
    await checkPage(page, 'webhooks-secret');
    await page.reload();
    await page.waitForSelector('#new-key-gone');
    assert.equal(await page.locator('#new-key').count(), 0, 'the secret is shown once');
    assert.doesNotMatch(await page.content(), new RegExp(secret.slice(6, 20).replace(/[+/]/g, '\\$&')));

    await page.getByRole('link', { name: receiverUrl }).click();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.waitForSelector('.flash.ok');
    await waitFor(() => received.length === 1, { timeout: 15_000, message: 'the test event to reach the receiver' });
    const event = new Webhook(secret).verify(received[0]!.body, received[0]!.headers) as { type: string };
    assert.equal(event.type, 'webhook.test');
    await waitFor(
      async () => {
        await page.reload();
        return /webhook\.test/.test((await page.locator('main').textContent()) ?? '');
      },
      { timeout: 10_000, message: 'the delivery log to show the test event' },
    );
    assert.match((await page.getByRole('region', { name: 'Delivery log' }).textContent()) ?? '', /webhook\.test.*1.*204.*ms/s);
    await checkPage(page, 'webhooks-endpoint');

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    assert.match((await page.locator('main').textContent()) ?? '', /Nothing more is sent to it/);
    assert.equal(await stack.client.hlen(`svc:webhooks:{${ws}}`), 1, 'the confirmation page changed nothing');
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.waitForSelector('.flash.ok');
    assert.match((await page.locator('main').textContent()) ?? '', /No webhook endpoints yet/);
    assert.equal(await stack.client.hlen(`svc:webhooks:{${ws}}`), 0);
  } finally {
    await context.close();
  }
});

test('the page reads on a phone, and a person who does not own the workspace gets no webhooks page', async () => {
  const owner = await newPerson(stack, 'dash-wh-phone');
  const other = await newPerson(stack, 'dash-wh-other');
  const phone = await signedIn(owner.email, { width: 390, height: 844 });
  try {
    await phone.page.goto(`${stack.authUrl}/dashboard/workspaces/${owner.user.workspace}/webhooks`);
    assert.equal(await phone.page.locator('main h1').textContent(), 'Webhooks');
    await checkPage(phone.page, 'webhooks-phone');
  } finally {
    await phone.context.close();
  }
  const stranger = await signedIn(other.email);
  try {
    const res = await stranger.page.goto(`${stack.authUrl}/dashboard/workspaces/${owner.user.workspace}/webhooks`);
    assert.ok(res && [403, 404].includes(res.status()), `a non-owner is refused: ${res?.status()}`);
  } finally {
    await stranger.context.close();
  }
});
