/**
 * Every single-use value is claimed with one atomic write (docs/security.md "Single-use values"),
 * the account side: round after round, N attempts carrying one value are sent at once, and exactly
 * one gets through; every other gets the refusal a later reuse gets, never a 5xx. The values are a
 * table, one row each (its name, how to mint one, how to spend it and tell which attempt won), so a
 * new one is a row. Each row drives the real HTTP endpoint where the value arrives over HTTP; a
 * passkey is a software authenticator written out below (WebAuthn Level 3 §6.1, §6.3.3), and the
 * single sign-on state, which only a provider's answer carries, is taken from its store.
 */
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign, type KeyObject } from 'node:crypto';
import { after, before, test } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { generate } from 'otplib';
import { K, type PublicJwk, type User } from '@svc/accounts';
import { createSsoStore, SsoError, type SsoSettings } from '@svc/sso';
import type { IDToken } from 'openid-client';
import { startSmtpInbox, waitFor, type SmtpInbox } from '@svc/testkit';
import { newTotpSecret } from '../src/factors/totp.ts';
import { JWT_BEARER_GRANT } from '../src/oauth/id-jag.ts';
import { ensurePersonalProject } from '../src/oauth/personal-project.ts';
import { identityOfIdToken, provisioning } from '../src/sso/provision.ts';
import {
  cookiePairs,
  newProject,
  postForm,
  postJson,
  signedIn,
  startAuth,
  TEST_PASSWORD,
  type AuthFixture,
  type SignedIn,
} from './support.ts';

/** Attempts sent at once with one value. */
const N = 8;
/** Rounds per value: a found-then-saved claim lets several through in most rounds, so a few catch it. */
const ROUNDS = 5;
const MANY = { limit: 100_000, windowSeconds: 3600 };

let f: AuthFixture;
let smtp: SmtpInbox;

before(async () => {
  smtp = await startSmtpInbox();
  // The brute-force limits are docs/security.md "Guessing"; here they must not answer first.
  const limits = {
    signInPerIp: MANY,
    signInPerAccount: MANY,
    signUpPerIp: MANY,
    resetPerIp: MANY,
    codeEntryPerIp: MANY,
    registrationPerIp: MANY,
    secondFactorPerAccount: MANY,
  };
  f = await startAuth({ env: { SMTP_URL: smtp.url }, limits });
  // The first passkey check of a process compiles the WebAuthn library's code paths, one turn of
  // 50 to 60 ms here: made in this hook, which the loop budget does not count, not in a row.
  assert.equal(await passwordlessSignIn(), 'won');
});
after(async () => {
  await f.close();
  await smtp.close();
});

/** What an attempt got: 'won' (it used the value), 'refused' (told clearly it was used), or what else it got. */
type Outcome = 'won' | 'refused' | (string & {});

/** A single-use value: how to mint one, and how one attempt of N spends it. */
interface SingleUse<V> {
  name: string;
  mint(): Promise<V>;
  spend(value: V, i: number): Promise<Outcome>;
}

/** An HTTP answer as the rows read it. */
interface Answer {
  status: number;
  location: string;
  text: string;
}

async function send(path: string, options: { cookie?: string; form?: Record<string, string> } = {}): Promise<Answer> {
  const res = await fetch(`${f.url}${path}`, {
    method: options.form ? 'POST' : 'GET',
    headers: { cookie: options.cookie ?? '', ...(options.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    ...(options.form ? { body: new URLSearchParams(options.form) } : {}),
    redirect: 'manual',
  });
  return { status: res.status, location: res.headers.get('location') ?? '', text: await res.text() };
}

/** A browser that opened `path` without signing in: its cookies and the form tokens of the page. */
async function visit(path: string): Promise<{ cookie: string; csrf: string; xsrf: string; text: string }> {
  const res = await fetch(`${f.url}${path}`, { redirect: 'manual' });
  const text = await res.text();
  return {
    cookie: cookiePairs(res),
    csrf: /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? '',
    xsrf: /name="xsrf" value="([^"]+)"/.exec(text)?.[1] ?? '',
    text,
  };
}

/** 'won' or 'refused' by the row's reading of the answer; else its status and first words. */
function judge(a: Answer, won: (a: Answer) => boolean, refused: (a: Answer) => boolean): Outcome {
  if (won(a)) return 'won';
  if (refused(a) && a.status < 500) return 'refused';
  return `${a.status} ${a.location} ${a.text.replace(/\s+/g, ' ').slice(0, 160)}`;
}

const tag = () => Math.random().toString(36).slice(2, 8);

async function person(prefix: string): Promise<User> {
  return f.accounts.users.create({ email: `${prefix}-${tag()}@example.com`, password: TEST_PASSWORD, emailVerified: true });
}

/**
 * `n` browsers each past the password of `user`, each waiting at /signin/factor with its CSRF
 * token. One after another: concurrent sign-ins of one account are the account's backoff's concern.
 */
async function waitingAtFactor(user: User, n: number): Promise<SignedIn[]> {
  const browsers: SignedIn[] = [];
  for (let i = 0; i < n; i++) browsers.push(await signedIn(f, user.email, { page: '/signin/factor' }));
  return browsers;
}

/** A person with an authenticator app (RFC 6238) confirmed through the store; its secret and recovery codes. */
async function withTotp(prefix: string): Promise<{ user: User; secret: string; codes: string[] }> {
  const user = await person(prefix);
  const secret = newTotpSecret();
  await f.accounts.factors.beginTotp(user.id, secret);
  // Confirmed at time step 0, so the code of the current step is unused.
  const codes = await f.accounts.factors.confirmTotp(user.id, 0);
  assert.ok(Array.isArray(codes));
  return { user, secret, codes };
}

const totpNow = (secret: string) => generate({ secret, period: 30 });

const factorWon = (a: Answer) => a.status === 303 && a.location === '/';
const factorRefused = (a: Answer) => a.status === 401 && /not right, or was used already/.test(a.text);

/** A passkey of `user` held by this test: its stored record, and the assertions it signs. */
interface SoftPasskey {
  record: { id: string; publicKey: string; counter: number; transports: string[] };
  /** The credential JSON a passkey form posts, answering `challenge` with signature counter `counter`. */
  assert(challenge: string, counter: number): string;
}

/**
 * A software passkey: an ES256 key pair, its public key as a COSE_Key (RFC 9053 §7.1.1: kty EC2,
 * alg ES256, crv P-256, x, y), and assertions as an authenticator makes them (WebAuthn Level 3
 * §6.1 authenticator data: the RP ID hash, flags UP and UV, the signature counter; §6.3.3: the
 * signature over the authenticator data and the hash of the client data).
 */
function softPasskey(user: User): SoftPasskey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const coord = (c: string | undefined) => Buffer.from(c ?? '', 'base64url');
  const cose = Buffer.concat([
    Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]),
    coord(jwk.x),
    Buffer.from([0x22, 0x58, 0x20]),
    coord(jwk.y),
  ]);
  const id = randomBytes(16).toString('base64url');
  return {
    record: { id, publicKey: cose.toString('base64url'), counter: 0, transports: ['internal'] },
    assert: (challenge, counter) => assertion(privateKey, id, user, challenge, counter),
  };
}

/** What `softPasskey` posts: an assertion by `key` for credential `id`, naming `user` as its user handle. */
function assertion(key: KeyObject, id: string, user: User, challenge: string, counter: number): string {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(counter);
  const rpIdHash = createHash('sha256').update(new URL(f.url).hostname).digest();
  const authenticatorData = Buffer.concat([rpIdHash, Buffer.from([0x05]), count]);
  const clientDataJSON = Buffer.from(
    JSON.stringify({ type: 'webauthn.get', challenge, origin: new URL(f.url).origin, crossOrigin: false }),
  );
  const signature = sign('sha256', Buffer.concat([authenticatorData, createHash('sha256').update(clientDataJSON).digest()]), key);
  return JSON.stringify({
    id,
    rawId: id,
    type: 'public-key',
    response: {
      authenticatorData: authenticatorData.toString('base64url'),
      clientDataJSON: clientDataJSON.toString('base64url'),
      signature: signature.toString('base64url'),
      userHandle: Buffer.from(user.id).toString('base64url'),
    },
    clientExtensionResults: {},
  });
}

/** A passwordless sign-in page opened: its browser, CSRF token and the challenge it keeps. */
async function passwordlessPage(): Promise<{ cookie: string; csrf: string; challenge: string }> {
  const page = await visit('/signin/passkey');
  const challenge = /challenge&quot;:&quot;([A-Za-z0-9_-]+)/.exec(page.text)?.[1];
  assert.ok(challenge, 'the page carries its challenge');
  return { cookie: page.cookie, csrf: page.csrf, challenge };
}

const passkeyWon = (a: Answer) => a.status === 303 && a.location === '/';
const passkeyRefused = (a: Answer) => a.status === 400 && /That passkey was not accepted/.test(a.text);

/** The passwordless sign-in (/signin/passkey) that the browser `p`, which opened its page, posts with `credential`. */
const passkeySignIn = async (p: { cookie: string; csrf: string }, credential: string) =>
  judge(await send('/signin/passkey', { cookie: p.cookie, form: { csrf: p.csrf, credential, return: '/' } }), passkeyWon, passkeyRefused);

/** One passwordless sign-in of a new person with a new passkey. */
async function passwordlessSignIn(): Promise<Outcome> {
  const user = await person('passkey');
  const key = softPasskey(user);
  assert.equal(await f.accounts.factors.passkeys.add(user.id, key.record), 'added');
  const page = await passwordlessPage();
  return passkeySignIn(page, key.assert(page.challenge, 0));
}

/** The mail to `to` (after `since` mails), and the token of its link to `path`. */
async function mailedToken(to: string, since: number, path: string): Promise<string> {
  const mail = await waitFor(() => smtp.mails.slice(since).find((m) => m.to === to), { timeout: 5000, message: `the mail to ${to}` });
  const token = new RegExp(`${path}\\?token=([A-Za-z0-9_-]+)`).exec(mail.text)?.[1];
  assert.ok(token, `a ${path} link in the mail`);
  return token;
}

const row = <V>(r: SingleUse<V>) => r as SingleUse<unknown>;

const IDP = 'https://idp.example.com';

const SINGLE_USE = [
  row({
    name: 'a TOTP code (its time step, RFC 6238 §5.2) at the sign-in second step',
    async mint() {
      const { user, secret } = await withTotp('totp');
      return { browsers: await waitingAtFactor(user, N), code: await totpNow(secret) };
    },
    spend: async ({ browsers, code }, i) => {
      const b = browsers[i]!;
      return judge(await send('/signin/factor', { cookie: b.cookie, form: { csrf: b.csrf, code } }), factorWon, factorRefused);
    },
  }),
  row({
    name: 'a recovery code at the sign-in second step',
    async mint() {
      const { user, codes } = await withTotp('recovery');
      return { browsers: await waitingAtFactor(user, N), recovery: codes[0]! };
    },
    spend: async ({ browsers, recovery }, i) => {
      const b = browsers[i]!;
      return judge(await send('/signin/factor', { cookie: b.cookie, form: { csrf: b.csrf, recovery } }), factorWon, factorRefused);
    },
  }),
  row({
    name: 'a waiting sign-in (its svc_factor cookie) finished by N different right codes',
    async mint() {
      const { user, codes } = await withTotp('waiting');
      const [browser] = await waitingAtFactor(user, 1);
      return { browser: browser!, codes };
    },
    spend: async ({ browser, codes }, i) =>
      judge(
        await send('/signin/factor', { cookie: browser.cookie, form: { csrf: browser.csrf, recovery: codes[i]! } }),
        factorWon,
        (a) => a.status === 303 && a.location === '/signin',
      ),
  }),
  row({
    name: 'an authenticator enrolment (the waiting secret) confirmed by its code',
    async mint() {
      const user = await person('enrol');
      const browser = await signedIn(f, user.email, { page: '/factors/totp' });
      const secret = await f.accounts.factors.pendingTotp(user.id);
      assert.ok(secret, 'the page began an enrolment');
      return { browser, code: await totpNow(secret) };
    },
    spend: async ({ browser, code }) =>
      judge(
        await send('/factors/totp', { cookie: browser.cookie, form: { csrf: browser.csrf, code } }),
        (a) => a.status === 200 && /<li><code>[a-z0-9-]+<\/code><\/li>/.test(a.text),
        // Once it is confirmed, a replacement needs a step-up first (factors/enrolment-routes.ts).
        (a) => (a.status === 400 && /setup expired|not right/.test(a.text)) || (a.status === 303 && a.location === '/factors/step-up'),
      ),
  }),
  row({
    name: 'a passkey signature counter (WebAuthn Level 3 §6.1.1), N challenges answered with one counter',
    async mint() {
      const user = await person('counter');
      const key = softPasskey(user);
      assert.equal(await f.accounts.factors.passkeys.add(user.id, { ...key.record, counter: 6 }), 'added');
      const pages = await Promise.all(Array.from({ length: N }, passwordlessPage));
      return pages.map((p) => ({ ...p, credential: key.assert(p.challenge, 7) }));
    },
    spend: (pages, i) => passkeySignIn(pages[i]!, pages[i]!.credential),
  }),
  row({
    name: 'a WebAuthn challenge, answered N times by an authenticator without a counter',
    async mint() {
      const user = await person('challenge');
      const key = softPasskey(user);
      assert.equal(await f.accounts.factors.passkeys.add(user.id, key.record), 'added');
      const p = await passwordlessPage();
      // Counter 0 after 0 is allowed (WebAuthn Level 3 §6.1.1): the challenge alone is single-use.
      return { ...p, credential: key.assert(p.challenge, 0) };
    },
    spend: (p) => passkeySignIn(p, p.credential),
  }),
  row({
    name: 'a password-reset link',
    async mint() {
      const user = await person('reset');
      const since = smtp.mails.length;
      const form = await visit('/forgot');
      assert.equal((await send('/forgot', { cookie: form.cookie, form: { csrf: form.csrf, email: user.email } })).status, 200);
      const token = await mailedToken(user.email, since, '/reset');
      return { token, page: await visit(`/reset?token=${token}`) };
    },
    spend: async ({ token, page }, i) =>
      judge(
        await send('/reset', { cookie: page.cookie, form: { csrf: page.csrf, token, password: `a new long passphrase ${i}` } }),
        (a) => a.status === 200 && /Your new password is set/.test(a.text),
        (a) => a.status === 400 && /expired or was already used/.test(a.text),
      ),
  }),
  row({
    name: 'an email-confirmation link',
    async mint() {
      const email = `confirm-${tag()}@example.com`;
      const since = smtp.mails.length;
      const form = await visit('/signup');
      const signup = await send('/signup', { cookie: form.cookie, form: { csrf: form.csrf, email, password: TEST_PASSWORD, return: '/' } });
      assert.equal(signup.status, 200);
      const token = await mailedToken(email, since, '/verify-email');
      return { token, page: await visit(`/verify-email?token=${token}`) };
    },
    spend: async ({ token, page }) =>
      judge(
        await send('/verify-email', { cookie: page.cookie, form: { csrf: page.csrf, token } }),
        (a) => a.status === 200 && /is confirmed/.test(a.text),
        (a) => a.status === 400 && /expired or was already used/.test(a.text),
      ),
  }),
  row({
    name: 'an invitation link, accepted',
    async mint() {
      const { user: owner, slug } = await newProject(f, 'invite');
      const invited = await person('invited');
      const { token } = await f.accounts.invitations.create({
        project: slug,
        email: invited.email,
        role: 'EDITOR',
        invitedBy: owner.email,
      });
      return { token, browser: await signedIn(f, invited.email, { page: `/invitation?token=${token}` }) };
    },
    spend: async ({ token, browser }) =>
      judge(
        await send('/invitation', { cookie: browser.cookie, form: { csrf: browser.csrf, token } }),
        (a) => a.status === 200 && /Invitation accepted/.test(a.text),
        (a) => a.status === 400 && /was already accepted/.test(a.text),
      ),
  }),
  row({
    name: 'an ID-JAG jti (RFC 7523 §3), at the token endpoint',
    async mint() {
      const { user, resource } = await newProject(f, 'idjag');
      const { privateKey, publicKey } = await generateKeyPair('ES256');
      const jwk = { ...(await exportJWK(publicKey)), kid: 'idp-1', alg: 'ES256' } as PublicJwk;
      await f.accounts.trustedIssuers.add(user.workspace, IDP, { jwks: { keys: [jwk] } });
      await createSsoStore(f.client, f.config.cookieKeys).link(user.workspace, IDP, `sub-${user.id}`, user.id);
      const reg = await postJson(`${f.url}/api/oauth/register`, {
        client_name: 'Enterprise agent',
        redirect_uris: ['http://127.0.0.1:9/cb'],
        grant_types: ['authorization_code', JWT_BEARER_GRANT],
        token_endpoint_auth_method: 'none',
      });
      assert.equal(reg.status, 201, JSON.stringify(reg.body));
      const clientId = String(reg.body['client_id']);
      const assertion = await new SignJWT({ client_id: clientId, resource, jti: randomUUID() })
        .setProtectedHeader({ alg: 'ES256', typ: 'oauth-id-jag+jwt', kid: 'idp-1' })
        .setIssuer(IDP)
        .setSubject(`sub-${user.id}`)
        .setAudience(f.url)
        .setIssuedAt()
        .setExpirationTime('120s')
        .sign(privateKey);
      return { assertion, clientId };
    },
    async spend({ assertion, clientId }) {
      const a = await postForm(`${f.url}/api/oauth/token`, { grant_type: JWT_BEARER_GRANT, assertion, client_id: clientId });
      if (a.status === 200 && typeof a.body['access_token'] === 'string') return 'won';
      if (a.status === 400 && a.body['error'] === 'invalid_grant' && /already used/.test(String(a.body['error_description'])))
        return 'refused';
      return `${a.status} ${JSON.stringify(a.body)}`;
    },
  }),
  row({
    name: "the dashboard's one-time reveal of a new key",
    async mint() {
      const user = await person('reveal');
      const bots = `/dashboard/workspaces/${user.workspace}/service-accounts`;
      const browser = await signedIn(f, user.email, { page: bots });
      const made = await send(bots, { cookie: browser.cookie, form: { csrf: browser.csrf, name: 'deployer' } });
      assert.equal(made.status, 303, made.text.slice(0, 300));
      assert.match(made.location, /\/reveal\//);
      return { cookie: browser.cookie, reveal: made.location };
    },
    spend: async ({ cookie, reveal }) =>
      judge(
        await send(reveal, { cookie }),
        (a) => a.status === 200 && /Copy this .+ now: you will not see it again/.test(a.text),
        (a) => a.status === 200 && /was shown once and is gone/.test(a.text),
      ),
  }),
  row({
    name: 'a device user code (RFC 8628 §3.3), confirmed at /device',
    async mint() {
      const started = await postForm(`${f.url}/api/oauth/device/code`, { client_id: 'svc-mcp' });
      assert.equal(started.status, 200, JSON.stringify(started.body));
      const browsers = await Promise.all(Array.from({ length: N }, () => visit('/device')));
      return { userCode: String(started.body['user_code']), browsers };
    },
    spend: async ({ userCode, browsers }, i) => {
      const b = browsers[i]!;
      return judge(
        await send('/device', { cookie: b.cookie, form: { xsrf: b.xsrf, user_code: userCode, confirm: 'yes' } }),
        (a) => a.status === 303 && /\/interaction\//.test(a.location),
        (a) => a.status === 200 && /That code has already been used/.test(a.text),
      );
    },
  }),
  row({
    name: "a single sign-on state (OpenID Connect Core 1.0 §3.1.2.1), taken from the store as the provider's callback takes it",
    async mint() {
      const store = createSsoStore(f.client, f.config.cookieKeys);
      const state = randomBytes(32).toString('base64url');
      await store.startSignIn(state, { workspace: 'ws_x', nonce: 'n', verifier: 'v', browser: 'b', returnTo: '/' });
      return { store, state };
    },
    spend: async ({ store, state }) => ((await store.takeSignIn(state)) ? 'won' : 'refused'),
  }),
];

for (const r of SINGLE_USE) {
  test(`${r.name}: one of ${N} simultaneous uses gets through, every round`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const value = await r.mint();
      const outcomes = await Promise.all(Array.from({ length: N }, (_, i) => r.spend(value, i)));
      const summary = outcomes.join(' | ');
      assert.equal(outcomes.filter((o) => o === 'won').length, 1, `round ${round}: ${summary}`);
      assert.equal(outcomes.filter((o) => o === 'refused').length, N - 1, `round ${round}: ${summary}`);
    }
  });
}

test(`a personal project asked for by ${N} consents at once (a form sent twice) is made once, and every consent gets it`, async () => {
  // docs/security.md "Single-use values": the making is claimed by one SET NX (ensureProject).
  for (let round = 0; round < ROUNDS; round++) {
    const user = await person('provision');
    // create-svc names the project after its folder; without a name it is the first project.
    const name = round % 2 === 0 ? `folder-${round}` : undefined;
    const slugs = await Promise.all(Array.from({ length: N }, () => ensurePersonalProject(f.accounts, user, name)));
    const projects = await f.accounts.workspaces.projectsOf(user.workspace);
    assert.equal(projects.length, 1, `round ${round}: ${projects.join(', ')}`);
    assert.deepEqual(new Set(slugs), new Set(projects), `round ${round}: every consent answered with it (${slugs.join(', ')})`);
  }
});

test(`${N} first single sign-ins of one address at once make one account, and every one signs in as it or is told to try again`, async () => {
  // docs/security.md "Single-use values": the address is claimed with one SET NX and kept only once
  // the account is written (users.create); a sign-in that lost it waits for that account.
  const store = createSsoStore(f.client, f.config.cookieKeys);
  const sso = provisioning({ accounts: f.accounts, store, clearTakenOver: async () => {} });
  const { user: owner } = await newProject(f, 'sso-owner');
  const domain = `first-${tag()}.example.com`;
  assert.equal(await store.takeDomain(owner.workspace, domain), true);
  const settings: SsoSettings = {
    kind: 'oidc',
    issuer: IDP,
    clientId: 'svc',
    saml: null,
    defaultRole: 'VIEWER',
    required: false,
    groupRoles: [],
    updatedAt: 0,
  };
  for (let round = 0; round < ROUNDS; round++) {
    const email = `new-${round}@${domain}`;
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: IDP, sub: `sub-${round}`, aud: 'svc', iat: now, exp: now + 60, email, email_verified: true } as IDToken;
    const settled = await Promise.allSettled(
      Array.from({ length: N }, () => sso.signIn(owner.workspace, settings, identityOfIdToken(claims), '192.0.2.1')),
    );
    const account = await f.accounts.users.findByEmail(email);
    assert.ok(account, `round ${round}: the account exists`);
    const summary = settled.map((s) => (s.status === 'fulfilled' ? s.value.user.id : String(s.reason))).join(' | ');
    for (const s of settled)
      if (s.status === 'fulfilled') assert.equal(s.value.user.id, account.id, `round ${round}: ${summary}`);
      else
        assert.ok(
          s.reason instanceof SsoError && s.reason.status === 409 && /Try again/.test(s.reason.message),
          `round ${round}: ${summary}`,
        );
    assert.ok(
      settled.some((s) => s.status === 'fulfilled'),
      `round ${round}: ${summary}`,
    );
    assert.equal(await f.client.pttl(K.userByEmail(email)), -1, `round ${round}: the address is the account's for good`);
    const created = (await f.accounts.audit.page(owner.workspace, { action: 'sso.signed_in' })).entries.filter(
      (e) => e.target === `user:${email}` && e.detail?.['created'] === 'true',
    );
    assert.equal(created.length, 1, `round ${round}: one sign-in made it`);
  }
});
