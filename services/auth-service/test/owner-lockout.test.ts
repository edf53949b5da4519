/**
 * A stranger's wrong passwords never lock the owner out (docs/security.md "Guessing"): the
 * account's failure limit is kept per account and source together, so failures from one address
 * stop that address only. The test's loopback connections stand for a named proxy here
 * (TRUST_PROXY=loopback), so each request's source is the X-Forwarded-For it came with. Sign-ins also land in the owner's audit log.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startAuth, type AuthFixture } from './support.ts';

let f: AuthFixture;
before(async () => {
  f = await startAuth({
    env: { TRUST_PROXY: 'loopback' },
    limits: { signInPerAccount: { limit: 3, windowSeconds: 60 }, signInPerIp: { limit: 50, windowSeconds: 60 } },
  });
  await f.accounts.users.create({ emailVerified: true, email: 'owner@example.com', password: 'correct horse battery staple' });
});
after(() => f.close());

async function signIn(from: string, password: string): Promise<number> {
  const page = await fetch(`${f.url}/signin`, { headers: { 'x-forwarded-for': from } });
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const res = await fetch(`${f.url}/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, 'x-forwarded-for': from },
    body: new URLSearchParams({ csrf, email: 'owner@example.com', password }),
  });
  await res.body?.cancel();
  return res.status;
}

test("twenty wrong passwords from a stranger's address stop that address, not the owner elsewhere", async () => {
  const stranger = [];
  for (let i = 0; i < 20; i++) stranger.push(await signIn('203.0.113.9', `guess-${i}`));
  assert.deepEqual(stranger.slice(0, 3), [401, 401, 401]);
  assert.ok(
    stranger.slice(3).every((s) => s === 429),
    stranger.join(','),
  );
  assert.equal(await signIn('203.0.113.9', 'correct horse battery staple'), 429, 'the stranger address stays stopped');
  assert.equal(await signIn('198.51.100.7', 'correct horse battery staple'), 303, 'the owner signs in from their own address');

  const owner = (await f.accounts.users.findByEmail('owner@example.com'))!;
  const log = await f.accounts.audit.page(owner.workspace, { limit: 100 });
  const actions = log.entries.map((e) => `${e.action} ${e.source}`);
  assert.ok(actions.includes('signin.succeeded 198.51.100.7'), actions.join('\n'));
  assert.equal(actions.filter((a) => a === 'signin.failed 203.0.113.9').length, 3, 'each checked failure recorded once');
});
