/**
 * The lifecycle of an access request (docs/management.md "Access request lifecycle") on a running
 * gateway without email (the manifests' default): one pending request per requester and project,
 * a repeat updates it, a denial holds the requester back for a day, the decider and the level are
 * recorded and listed, and the tool says truthfully who was told.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ACCESS_REQUEST_TIMING, cleanReason, MAX_REASON_LENGTH } from '@svc/accounts';
import { testClock } from '@svc/testkit';
import { call, post, seed, startFixture, type GatewayFixture, type Seeded } from './support.ts';

const clock = testClock({ frozen: false });
let f: GatewayFixture;
let owner: Seeded;
let ownerKey: string;

before(async () => {
  f = await startFixture({ EMAIL: 'off' }, { now: clock.now });
  owner = await seed(f.accounts, { plan: 'TEAM' });
  ownerKey = (await f.accounts.keys.createUserKey({ userId: owner.userId })).key;
});
after(() => f.close());

async function ask(key: string, level: string, reason: string) {
  const r = await post(f.url, `/mcp/${owner.project}`, call('svc_request_access', { requested_level: level, reason }), {
    'X-API-Key': key,
  });
  assert.equal(r.status, 200, r.text);
  return r.body.result as { isError?: boolean; content: { text: string }[]; structuredContent?: Record<string, unknown> };
}

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(f.url + path, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': ownerKey },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed response body: its shape is what the assertions check
  return { status: res.status, body: (await res.json()) as any };
}

test('with email off the tool never claims a mail; a repeat updates the one pending request', async () => {
  const viewer = (
    await f.accounts.keys.createProjectKey({ project: owner.project, workspace: owner.workspace, level: 'VIEWER', name: 'bot' })
  ).key;
  const first = await ask(viewer, 'EDITOR', 'deploys');
  assert.doesNotMatch(first.content[0]!.text, /told by email|were emailed\./);
  assert.match(first.content[0]!.text, /not emailed \(this server sends no email\)/);
  assert.equal(first.structuredContent?.['admins_emailed'], false);
  const again = await ask(viewer, 'ADMIN', 'deploys, and more');
  assert.equal(again.structuredContent?.['id'], first.structuredContent?.['id'], 'the same request');
  assert.equal(again.structuredContent?.['updated'], true);
  assert.match(again.content[0]!.text, /updated/);
  const listed = (await api('GET', `/api/v1/projects/${owner.project}/access-requests`)).body.requests.filter(
    (r: { status: string }) => r.status === 'pending',
  );
  assert.equal(listed.length, 1);
  assert.deepEqual([listed[0].level, listed[0].reason], ['ADMIN', 'deploys, and more']);
});

test(`admins are due a mail once per ${ACCESS_REQUEST_TIMING.notifyCooldownMs / 60_000} minutes, however often a request is repeated`, async () => {
  const asker = await seed(f.accounts);
  const make = () =>
    f.accounts.accessRequests.create(
      {
        project: owner.project,
        requester: { type: 'user', id: asker.userId, label: asker.email },
        requestedLevel: 'VIEWER',
        reason: 'r',
      },
      { source: '192.0.2.1', requestId: 'test' },
    );
  const due = [(await make()).notifyAdmins];
  for (let i = 0; i < 4; i++) due.push((await make()).notifyAdmins);
  clock.advance(ACCESS_REQUEST_TIMING.notifyCooldownMs - 60_000);
  due.push((await make()).notifyAdmins);
  clock.advance(60_000);
  due.push((await make()).notifyAdmins);
  assert.deepEqual(due, [true, false, false, false, false, false, true]);
});

test(`after a denial the requester waits ${ACCESS_REQUEST_TIMING.denialCooldownMs / 3_600_000} h, told when; the decider and level are listed`, async () => {
  const asker = await seed(f.accounts);
  const askerKey = (await f.accounts.keys.createUserKey({ userId: asker.userId })).key;
  const first = await ask(askerKey, 'EDITOR', 'please');
  const id = String(first.structuredContent?.['id']);
  assert.equal((await api('POST', `/api/v1/projects/${owner.project}/access-requests/${id}/deny`)).status, 200);
  const refused = await ask(askerKey, 'VIEWER', 'please, again');
  assert.equal(refused.isError, true);
  assert.match(refused.content[0]!.text, /was denied; you can ask again after \d{4}-\d\d-\d\dT/);
  clock.advance(ACCESS_REQUEST_TIMING.denialCooldownMs - 60_000);
  assert.equal((await ask(askerKey, 'VIEWER', 'still')).isError, true, 'not a minute early');
  clock.advance(60_000);
  const later = await ask(askerKey, 'VIEWER', 'a day later');
  assert.notEqual(later.isError, true);
  const laterId = String(later.structuredContent?.['id']);
  assert.equal(
    (await api('POST', `/api/v1/projects/${owner.project}/access-requests/${laterId}/approve`, { level: 'VIEWER' })).status,
    200,
  );

  const all = (await api('GET', `/api/v1/projects/${owner.project}/access-requests`)).body.requests as Record<string, unknown>[];
  const denied = all.find((r) => r['id'] === id)!;
  const approved = all.find((r) => r['id'] === laterId)!;
  assert.deepEqual([denied['status'], denied['decided_by'], denied['granted_level']], ['denied', owner.email, null]);
  assert.deepEqual([approved['status'], approved['decided_by'], approved['granted_level']], ['approved', owner.email, 'VIEWER']);
  assert.ok(approved['decided_at']);
});

test('approvals and denials of one request sent at once: one is made, every other is a 409 "already decided"', async () => {
  // docs/security.md "Single-use values": the decision is one write; the losers are told who won.
  for (let round = 0; round < 3; round++) {
    const asker = (
      await f.accounts.keys.createProjectKey({ project: owner.project, workspace: owner.workspace, level: 'VIEWER', name: `racer${round}` })
    ).key;
    const id = String((await ask(asker, 'EDITOR', 'race')).structuredContent?.['id']);
    const base = `/api/v1/projects/${owner.project}/access-requests/${id}`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2 === 0 ? api('POST', `${base}/approve`, { level: 'VIEWER' }) : api('POST', `${base}/deny`),
      ),
    );
    const summary = answers.map((a) => `${a.status} ${JSON.stringify(a.body).slice(0, 120)}`).join(' | ');
    assert.equal(answers.filter((a) => a.status === 200).length, 1, `round ${round}: ${summary}`);
    const listed = (await api('GET', `/api/v1/projects/${owner.project}/access-requests`)).body.requests.find(
      (r: { id: string }) => r.id === id,
    );
    for (const a of answers.filter((x) => x.status !== 200)) {
      assert.equal(a.status, 409, `round ${round}: ${summary}`);
      assert.ok(JSON.stringify(a.body).includes(`This request was already ${String(listed.status)}.`), `round ${round}: ${summary}`);
    }
  }
});

test('a reason is kept as plain text: controls but line feeds removed, bounded', () => {
  assert.equal(cleanReason('a\u001b[2Jb\r\nc\u0000d\u202ee\u200b'), 'a[2Jb\ncde');
  assert.equal([...cleanReason('é'.repeat(MAX_REASON_LENGTH + 50))].length, MAX_REASON_LENGTH);
  assert.equal(cleanReason('  \n x \n '), 'x');
});
