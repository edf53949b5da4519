/**
 * The second factor over HTTP against a real auth-service and Redis (docs/auth-service.md "Second
 * factor"): TOTP enrolment confirmed by a code computed here (RFC 6238, written out below, not the
 * server's library), sign-in asking for the code before any session exists, a replayed code
 * refused, a recovery code working once, wrong codes throttled, and the workspace policy sending a
 * member without a factor to enrol before anything else.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import { RECOVERY_CODE_COUNT, TOTP_ENROL_TTL_SECONDS } from '@svc/accounts';
import { BUCKETS } from '@svc/limits';
import { SECOND_FACTOR_WAIT_SECONDS } from '../src/factors/pending.ts';
import { FACTOR_AT_FIELD, STEP_UP_MINUTES } from '../src/factors/step-up.ts';
import { TOTP_DRIFT_STEPS } from '../src/factors/totp.ts';
import { startAuth, TEST_PASSWORD, type AuthFixture } from './support.ts';

let f: AuthFixture;
before(async () => {
  const many = { limit: 10_000, windowSeconds: 900 };
  f = await startAuth({ limits: { signInPerIp: many, signInPerAccount: many } });
});
after(() => f.close());

/** RFC 4648 base32 to bytes. */
function base32(s: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of s.replace(/[\s=]/g, '').toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  return Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
}
/** RFC 6238 with RFC 4226 §5.3's dynamic truncation: the 6-digit code of `step`. */
function totp(secret: string, step = Math.floor(Date.now() / 30_000)): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', base32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

const cookiesOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');

/** One browser: its cookie jar and the last page's CSRF token. */
class Browser {
  cookie = '';
  csrf = '';
  async get(path: string) {
    const res = await fetch(`${f.url}${path}`, { headers: { cookie: this.cookie }, redirect: 'manual' });
    return this.keep(res);
  }
  async post(path: string, form: Record<string, string>) {
    const res = await fetch(`${f.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookie, origin: f.url },
      body: new URLSearchParams({ csrf: this.csrf, ...form }),
      redirect: 'manual',
    });
    return this.keep(res);
  }
  private async keep(res: Response) {
    const set = cookiesOf(res);
    if (set) this.cookie = [this.cookie, set].filter(Boolean).join('; ');
    const html = await res.text();
    this.csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? this.csrf;
    return { status: res.status, html, location: res.headers.get('location') ?? '' };
  }
  async signIn(email: string) {
    await this.get('/signin');
    return this.post('/signin', { email, password: TEST_PASSWORD, return: '/dashboard' });
  }
}

async function person(prefix: string) {
  const email = `${prefix}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await f.accounts.users.create({ email, password: TEST_PASSWORD, emailVerified: true });
  return { user, email };
}

/** A person with TOTP on, enrolled from the account page; their secret and recovery codes. */
async function enrolled(prefix: string) {
  const p = await person(prefix);
  const b = new Browser();
  assert.equal((await b.signIn(p.email)).status, 303);
  assert.match((await b.get('/dashboard/account')).html, /<a href="\/factors">Second factors<\/a>/, 'the account page links to it');
  const page = await b.get('/factors/totp');
  assert.equal(page.status, 200);
  assert.match(page.html, /<img src="data:image\/svg\+xml;base64,/, 'the QR code is an inline SVG');
  const secretOf = (html: string) => /<code id="secret">([A-Z2-7 ]+)<\/code>/.exec(html)?.[1]?.replace(/ /g, '') ?? '';
  const first = secretOf(page.html);
  assert.ok(first.length >= 16, 'the secret is shown for manual entry');
  const wrong = await b.post('/factors/totp', { code: '000000' === totp(first) ? '111111' : '000000' });
  assert.equal(wrong.status, 400, 'a wrong code confirms nothing');
  assert.equal((await f.accounts.factors.summary(p.user.id)).totp, null, 'not on before its confirmation');
  // Each showing is a fresh secret (docs/auth-service.md "Second factor"): none another browser made is confirmed.
  const secret = secretOf(wrong.html);
  assert.ok(secret.length >= 16 && secret !== first, 'the page shows a new secret to scan');
  assert.equal((await b.post('/factors/totp', { code: totp(first) })).status, 400, 'the secret shown before is gone');
  const again = await b.get('/factors/totp');
  const current = secretOf(again.html);
  const done = await b.post('/factors/totp', { code: totp(current) });
  assert.equal(done.status, 200);
  const codes = [...done.html.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]!);
  assert.equal(codes.length, RECOVERY_CODE_COUNT);
  return { ...p, secret: current, codes, browser: b };
}

test('TOTP: sign-in asks for the code before any session; a replayed code is refused', async () => {
  const p = await enrolled('totp');
  const b = new Browser();
  const signin = await b.signIn(p.email);
  assert.equal(signin.location, '/signin/factor');
  assert.equal((await b.get('/dashboard/account')).status, 303, 'no session before the second factor');
  await b.get('/signin/factor');
  assert.equal((await b.post('/signin/factor', { code: 'abc' })).status, 401);
  // The code of the enrolment's step was used: the next step's code is the one to type.
  const step = Math.floor(Date.now() / 30_000) + 1;
  const code = totp(p.secret, step);
  const ok = await b.post('/signin/factor', { code });
  assert.equal(ok.status, 303);
  assert.equal(ok.location, '/dashboard');
  assert.equal((await b.get('/dashboard/account')).status, 200, 'signed in');

  const other = new Browser();
  await other.signIn(p.email);
  await other.get('/signin/factor');
  assert.equal((await other.post('/signin/factor', { code })).status, 401, 'the same code again is refused');
  assert.equal((await other.get('/dashboard/account')).status, 303);
});

test('a recovery code signs in once, and is recorded in the audit log', async () => {
  const p = await enrolled('recovery');
  const [code] = p.codes;
  const b = new Browser();
  await b.signIn(p.email);
  await b.get('/signin/factor');
  assert.equal((await b.post('/signin/factor', { recovery: code!.toUpperCase() })).status, 303);
  assert.equal((await b.get('/dashboard/account')).status, 200);
  const again = new Browser();
  await again.signIn(p.email);
  await again.get('/signin/factor');
  assert.equal((await again.post('/signin/factor', { recovery: code! })).status, 401, 'used once');
  const log = await f.accounts.audit.page(p.user.workspace, { action: 'factor.recovery_used' });
  assert.equal(log.entries.length, 1);
});

test(`wrong codes are throttled per account: ${BUCKETS.secondFactorPerAccount.limit} per window, then 429`, async () => {
  const p = await enrolled('throttle');
  const b = new Browser();
  await b.signIn(p.email);
  await b.get('/signin/factor');
  for (let i = 0; i < BUCKETS.secondFactorPerAccount.limit; i++) assert.equal((await b.post('/signin/factor', { code: 'x' })).status, 401);
  const slowed = await b.post('/signin/factor', { code: totp(p.secret, Math.floor(Date.now() / 30_000) + 1) });
  assert.equal(slowed.status, 429, 'even the right code waits');
});

test('workspace policy: a member without a factor enrols at sign-in before reaching anything', async () => {
  const owner = await person('owner');
  const slug = `pol-${Math.random().toString(36).slice(2, 8)}`;
  await f.accounts.workspaces.createProject({ slug, workspace: owner.user.workspace });
  const member = await person('member');
  await f.accounts.workspaces.setRole(slug, member.user.id, 'VIEWER');
  await f.accounts.factors.setRequired(owner.user.workspace, true);

  const b = new Browser();
  assert.equal((await b.signIn(member.email)).location, '/signin/enrol');
  assert.equal((await b.get('/dashboard/account')).status, 303, 'nothing reachable before enrolling');
  const page = await b.get('/signin/enrol');
  assert.match(page.html, /requires a second factor/);
  const secret = /<code id="secret">([A-Z2-7 ]+)<\/code>/.exec(page.html)?.[1]?.replace(/ /g, '') ?? '';
  const done = await b.post('/signin/enrol', { code: totp(secret) });
  assert.equal(done.status, 200);
  assert.match(done.html, /Save your recovery codes/);
  assert.equal((await b.get('/dashboard/account')).status, 200);
});

/** The Redis keys matching `pattern` (a test's own private Redis, so KEYS is fine). */
const keysLike = (pattern: string) => f.client.keys(pattern);

/** Makes the second factor of every session of the person older than the step-up window. */
async function ageFactor(userId: string): Promise<void> {
  for (const key of await keysLike('svc:oidc:web-session:*')) {
    if ((await f.client.hget(key, 'userId')) === userId)
      await f.client.hset(key, FACTOR_AT_FIELD, String(Date.now() - STEP_UP_MINUTES * 60_000 - 1000));
  }
}

test(`bounds: an enrolment waits ${TOTP_ENROL_TTL_SECONDS} s, a sign-in waits ${SECOND_FACTOR_WAIT_SECONDS} s, drift is ${TOTP_DRIFT_STEPS} step`, async () => {
  const p = await enrolled('bounds');
  const enrolling = await person('enrolling');
  const e = new Browser();
  await e.signIn(enrolling.email);
  await e.get('/factors/totp');
  const pendingTtl = await f.client.ttl(`svc:factors:{${enrolling.user.id}}:totp-pending`);
  assert.ok(pendingTtl > 0 && pendingTtl <= TOTP_ENROL_TTL_SECONDS, `enrolment TTL ${pendingTtl}`);

  const before = new Set(await keysLike('svc:oidc:factor-pending:*'));
  const b = new Browser();
  await b.signIn(p.email);
  const [key] = (await keysLike('svc:oidc:factor-pending:*')).filter((k) => !before.has(k));
  const ttl = await f.client.ttl(key!);
  assert.ok(ttl > 0 && ttl <= SECOND_FACTOR_WAIT_SECONDS, `waiting sign-in TTL ${ttl}`);
  await b.get('/signin/factor');
  const beyond = Math.floor(Date.now() / 30_000) + TOTP_DRIFT_STEPS + 2;
  assert.equal((await b.post('/signin/factor', { code: totp(p.secret, beyond) })).status, 401, 'a code beyond the drift is refused');
});

test(`step-up: a key of any level needs a factor used within ${STEP_UP_MINUTES} minutes`, async () => {
  const p = await enrolled('stepup');
  const slug = `su-${Math.random().toString(36).slice(2, 8)}`;
  await f.accounts.workspaces.createProject({ slug, workspace: p.user.workspace });
  const b = new Browser();
  await b.signIn(p.email);
  await b.get('/signin/factor');
  assert.equal((await b.post('/signin/factor', { code: totp(p.secret, Math.floor(Date.now() / 30_000) + 1) })).status, 303);
  await ageFactor(p.user.id);
  const keysPage = `/dashboard/projects/${slug}/keys`;
  await b.get(`${keysPage}/new`);
  const admin = await b.post(keysPage, { name: 'ops', level: 'ADMIN', expires: '30d', rateLimit: '' });
  assert.equal(admin.status, 303);
  assert.equal(admin.location, `/factors/step-up?return=${encodeURIComponent(keysPage)}`);
  assert.equal((await f.accounts.keys.listForProject(slug)).length, 0, 'no key made');
  await b.get(keysPage);
  const editor = await b.post(keysPage, { name: 'ci', level: 'EDITOR', expires: '30d', rateLimit: '' });
  assert.equal(editor.location, admin.location, 'an EDITOR key is a credential too (docs/security.md "Step-up")');

  const page = await b.get(admin.location);
  assert.match(page.html, /Confirm it is you/);
  // The sign-in used this window's codes; as if it had been long ago, its time step is forgotten.
  await f.client.hset(`svc:factors:{${p.user.id}}:totp`, 'lastStep', '0');
  const up = await b.post('/factors/step-up', { return: keysPage, code: totp(p.secret) });
  assert.equal(up.location, keysPage);
  await b.get(keysPage);
  const again = await b.post(keysPage, { name: 'ops', level: 'ADMIN', expires: '30d', rateLimit: '' });
  assert.match(again.location, /\/keys\/reveal\//, 'after the step-up the ADMIN key is made');
});

test('replacing or removing the authenticator needs a step-up; the policy keeps the last one', async () => {
  const p = await enrolled('remove');
  const b = p.browser;
  await ageFactor(p.user.id);
  assert.equal((await b.get('/factors/totp')).location, '/factors/step-up', 'a new secret replacing the old needs the old');
  await b.get('/factors');
  assert.equal((await b.post('/factors/totp/remove', { confirm: 'yes' })).location, '/factors/step-up?return=%2Ffactors');
  await f.client.hset(`svc:factors:{${p.user.id}}:totp`, 'lastStep', '0');
  await b.get('/factors/step-up');
  assert.equal((await b.post('/factors/step-up', { code: totp(p.secret) })).status, 303);
  await f.accounts.factors.setRequired(p.user.workspace, true);
  await b.get('/factors');
  assert.equal((await b.post('/factors/totp/remove', { confirm: 'yes' })).status, 409, 'the workspace requires one');
  await f.accounts.factors.setRequired(p.user.workspace, false);
  await b.get('/factors');
  assert.equal((await b.post('/factors/totp/remove', { confirm: '' })).status, 400, 'the box must be ticked');
  const removed = await b.post('/factors/totp/remove', { confirm: 'yes' });
  assert.equal(removed.status, 200);
  assert.equal(await f.accounts.factors.hasAny(p.user.id), false);
  assert.equal((await f.accounts.audit.page(p.user.workspace, { action: 'factor.removed' })).entries.length, 1);
});
