/**
 * An approval signed with a passkey (docs/approvals.md "With a passkey"), in chromium with the
 * DevTools WebAuthn domain's virtual authenticator: an admin reviews a held call and approves it
 * with their passkey; the record keeps the assertion, whose challenge is made of the call's id,
 * hash and the page's nonce, and whose signature checks against the passkey's public key. The same
 * assertion posted again, or for another held call, or with another nonce, approves nothing (its
 * challenge is taken once and answers for one call). axe-core at desktop and phone sizes.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { verifySignature } from '@simplewebauthn/server/helpers';
import { approvalChallenge } from '@svc/accounts';
import { axeViolations } from '../support/axe.ts';
import { newPerson, PASSWORD, startStack, type Stack } from '../support/stack.ts';
import { launchBrowser, shot, signInOnPage } from './browser.ts';

let stack: Stack;
let browser: Browser;
before(async () => {
  // Browsers refuse an IP address as RP ID (WebAuthn Level 3 §5.1.3): the auth-service runs on localhost.
  stack = await startStack({}, { authHost: 'localhost' });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await stack?.close();
});

async function withAuthenticator(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return page;
}

const b64url = (s: string) => Buffer.from(s, 'base64url');

test("a held call approved with the admin's passkey: the signature covers that call, and it approves no other", async () => {
  const owner = await newPerson(stack, 'apk');
  const hold = (title: string) =>
    stack.accounts.approvals.create(
      {
        project: owner.slug,
        workspace: owner.user.workspace,
        tool: 'notes__write_note',
        arguments: { title, text: 'from an agent' },
        caller: { type: 'key', id: 'key_agent', label: 'agent key', clientId: 'svc-key:key_agent' },
      },
      { source: '192.0.2.1', requestId: 'test' },
    );
  const [first, second] = [await hold('first'), await hold('second')];
  const context = await browser.newContext();
  try {
    const page = await withAuthenticator(context);
    await page.goto(`${stack.authUrl}/signin?return=${encodeURIComponent('/dashboard')}`);
    await signInOnPage(page, owner.email, PASSWORD);
    await page.waitForURL(/\/dashboard/);
    await page.goto(`${stack.authUrl}/factors/passkey`);
    await page.click('form[data-passkey] button[type=submit]');
    await page.waitForSelector('ul.passkeys li');

    await page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/approvals`);
    await page.getByRole('link', { name: 'Review the call of notes__write_note (passkey)' }).first().click();
    await page.waitForSelector('form[data-passkey="get"]');
    const reviewed = page.url().split('/').at(-1)!;
    const held = reviewed === first.id ? first : second;
    const other = held === first ? second : first;
    assert.match((await page.textContent('main')) ?? '', new RegExp(held.callHash));
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      assert.deepEqual(await axeViolations(page, { wcag22: true }), [], `axe at ${viewport.width} px`);
      await shot(page, `dashboard-approval-passkey-${viewport.width}`);
    }
    const posted = page.waitForRequest((r) => r.url().endsWith('/approve-passkey') && r.method() === 'POST');
    await page.click('form[data-passkey="get"] button[type=submit]');
    const body = new URLSearchParams((await posted).postData() ?? '');
    await page.waitForSelector('.flash.ok');
    assert.match((await page.textContent('main')) ?? '', /Call approved/);

    const approved = (await stack.accounts.approvals.get(owner.slug, held.id))!;
    assert.equal(approved.status, 'approved');
    const proof = approved.passkey!;
    assert.ok(proof, 'the assertion is kept with the approval');
    const clientData = JSON.parse(b64url(proof.clientDataJSON).toString('utf8')) as { challenge: string; type: string };
    assert.equal(clientData.type, 'webauthn.get');
    assert.equal(
      clientData.challenge,
      approvalChallenge(held.id, held.callHash, proof.nonce).toString('base64url'),
      'the challenge is made of this call',
    );
    const [passkey] = await stack.accounts.factors.passkeys.list(owner.user.id);
    const data = Buffer.concat([b64url(proof.authenticatorData), createHash('sha256').update(b64url(proof.clientDataJSON)).digest()]);
    assert.ok(
      await verifySignature({ signature: b64url(proof.signature), data, credentialPublicKey: b64url(passkey!.publicKey) }),
      "the signature checks against the admin's passkey",
    );
    const log = await stack.accounts.audit.page(owner.user.workspace, { action: 'approval.approved' });
    assert.equal(log.entries[0]?.detail?.['passkey'], proof.credentialId, 'the audit entry names the passkey');

    // The same assertion again: for the other held call, for this one again, with another nonce.
    const tries = [
      { id: other.id, nonce: body.get('nonce')! },
      { id: held.id, nonce: body.get('nonce')! },
      { id: other.id, nonce: 'A'.repeat(22) },
    ];
    for (const t of tries) {
      const form = await (await context.request.get(`${stack.authUrl}/dashboard/projects/${owner.slug}/approvals/${other.id}`)).text();
      const fields = new URLSearchParams(body);
      fields.set('csrf', /name="csrf" value="([^"]+)"/.exec(form)?.[1] ?? '');
      fields.set('nonce', t.nonce);
      const res = await context.request.post(`${stack.authUrl}/dashboard/projects/${owner.slug}/approvals/${t.id}/approve-passkey`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: stack.authUrl },
        data: fields.toString(),
        maxRedirects: 0,
      });
      assert.ok(
        res.status() !== 303 || !(res.headers()['location'] ?? '').includes('approval-approved'),
        `${t.id} ${t.nonce}: approved by a replayed assertion`,
      );
    }
    assert.equal((await stack.accounts.approvals.get(owner.slug, other.id))?.status, 'pending', 'the other call is still waiting');
  } finally {
    await context.close();
  }
});
