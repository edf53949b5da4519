/**
 * Access-request notices by email, through a real local SMTP server (docs/management.md
 * "Notices"): a person without access asks with svc_request_access; the project's owner is told,
 * with the dashboard link and the command; the owner approves over the management API; the person
 * is told the decision, can call tools at the granted level, and sees the request's status.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSmtpInbox, waitFor, type SmtpInbox } from '@svc/testkit';
import { newPerson, startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let smtp: SmtpInbox;
const inbox = () => smtp.mails;

before(async () => {
  smtp = await startSmtpInbox();
  stack = await startStack({ SMTP_URL: smtp.url });
});
after(async () => {
  await stack.close();
  await smtp.close();
});

const rest = async (path: string, key: string, body: unknown) => {
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

test('the owner hears of a request, approves it, and the person hears the decision', async () => {
  const owner = await newPerson(stack, 'notice-owner');
  const asker = await newPerson(stack, 'notice-asker');
  const ownerKey = (await stack.accounts.keys.createUserKey({ userId: owner.user.id })).key;
  const askerKey = (await stack.accounts.keys.createUserKey({ userId: asker.user.id })).key;

  const asked = await rest(`/api/v1/projects/${owner.slug}/tools/svc_request_access`, askerKey, {
    requested_level: 'EDITOR',
    reason: 'I fix typos',
  });
  assert.equal(asked.status, 200, JSON.stringify(asked.body));
  const notice = await waitFor(() => inbox().find((m) => m.to === owner.email), { timeout: 5000, message: "the owner's notice" });
  assert.match(notice.text, new RegExp(`${asker.email} asks for EDITOR access to project ${owner.slug}`));
  assert.match(notice.text, /\n> I fix typos\r?\n/);
  assert.ok(notice.text.includes(`${stack.authUrl}/dashboard/projects/${owner.slug}/requests`), notice.text);
  const id = /svc requests approve (\S+) /.exec(notice.text)?.[1];
  assert.ok(id, notice.text);

  const approved = await rest(`/api/v1/projects/${owner.slug}/access-requests/${id}/approve`, ownerKey, { level: 'VIEWER' });
  assert.equal(approved.status, 200, JSON.stringify(approved.body));
  const decision = await waitFor(() => inbox().find((m) => m.to === asker.email), { timeout: 5000, message: "the asker's decision" });
  assert.match(decision.text, new RegExp(`approved at VIEWER`));
  assert.ok(!inbox().some((m) => /svc-[0-9A-Za-z]{28}|svc-user-/.test(m.text)), 'no key in any mail');

  // The person follows their own request: asked EDITOR, granted VIEWER.
  const mine = await fetch(`${stack.baseUrl}/api/v1/me/access-requests`, { headers: { 'x-api-key': askerKey } });
  const body = (await mine.json()) as { requests: Record<string, unknown>[] };
  assert.equal(mine.status, 200);
  assert.deepEqual(
    body.requests.map((r) => [r['id'], r['project'], r['level'], r['status'], r['granted_level']]),
    [[id, owner.slug, 'EDITOR', 'approved', 'VIEWER']],
  );
  assert.ok(body.requests[0]?.['decided_at'], 'with the time of the decision');
});

test('repeats send one mail; the reason is quoted as plain text, its links and controls removed', async () => {
  const owner = await newPerson(stack, 'spam-owner');
  const asker = await newPerson(stack, 'spam-asker');
  const askerKey = (await stack.accounts.keys.createUserKey({ userId: asker.user.id })).key;
  const reason = 'urgent!\r\nBcc: victim@example.com\u001b[2J visit https://evil.example/login or www.evil.example now\u202e';
  for (let i = 0; i < 5; i++) {
    const asked = await rest(`/api/v1/projects/${owner.slug}/tools/svc_request_access`, askerKey, { requested_level: 'EDITOR', reason });
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
  }
  const mail = await waitFor(() => inbox().find((m) => m.to === owner.email), { timeout: 5000, message: "the owner's notice" });
  // The raw message is quoted-printable (RFC 2045 §6.7): soft breaks joined, =XX bytes decoded.
  const bytes = mail.text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  const notice = { text: Buffer.from(bytes, 'latin1').toString('utf8') };
  // The fifth request was answered after the first mail was handed over: no second one may follow.
  await waitFor(() => inbox().filter((m) => m.to === owner.email).length === 1, { timeout: 1000, message: 'one mail' });
  assert.equal(inbox().filter((m) => m.to === owner.email).length, 1, 'five requests, one mail');
  assert.ok(!notice.text.includes('evil.example'), notice.text);
  assert.ok(!notice.text.includes('victim@example.com'), notice.text);
  // eslint-disable-next-line no-control-regex -- the control characters are what it looks for
  assert.doesNotMatch(notice.text, /[\u001b\u202e]|\r(?!\n)/);
  assert.match(notice.text, /> urgent!\r?\n> Bcc: \[address removed\] visit \[link removed\] or \[link removed\] now/);
});

test('a decision is mailed only to a proven address; an unproven one reads it from its request list', async () => {
  const owner = await newPerson(stack, 'proof-owner');
  const ownerKey = (await stack.accounts.keys.createUserKey({ userId: owner.user.id })).key;
  // A personal key an unconfirmed account held from before addresses had to be proven.
  const unproven = await stack.accounts.users.create({
    email: `unproven-${Date.now()}@example.com`,
    password: 'correct horse battery staple',
  });
  const proven = await newPerson(stack, 'proof-asker');
  const ask = async (userId: string) => {
    const key = (await stack.accounts.keys.createUserKey({ userId })).key;
    const asked = await rest(`/api/v1/projects/${owner.slug}/tools/svc_request_access`, key, {
      requested_level: 'VIEWER',
      reason: 'reads',
    });
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    return { key, id: (await stack.accounts.accessRequests.list(owner.slug)).find((r) => r.requester.id === userId)?.id };
  };
  const first = await ask(unproven.id);
  const second = await ask(proven.user.id);
  assert.equal((await rest(`/api/v1/projects/${owner.slug}/access-requests/${first.id}/deny`, ownerKey, {})).status, 200);
  assert.equal((await rest(`/api/v1/projects/${owner.slug}/access-requests/${second.id}/deny`, ownerKey, {})).status, 200);
  // Both notices were started in that order; the second's mail arriving means the first is done.
  await waitFor(() => inbox().find((m) => m.to === proven.email && /was denied/.test(m.text)), {
    timeout: 5000,
    message: "the proven asker's decision",
  });
  assert.ok(!inbox().some((m) => m.to === unproven.email), 'no mail to an unproven address');
  const mine = await fetch(`${stack.baseUrl}/api/v1/me/access-requests`, { headers: { 'x-api-key': first.key } });
  const body = (await mine.json()) as { requests: Record<string, unknown>[] };
  assert.equal(body.requests[0]?.['status'], 'denied');
});
