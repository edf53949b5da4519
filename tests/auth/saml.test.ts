/**
 * SAML 2.0 single sign-on (docs/auth-service.md "SAML") against a real IdP started here
 * (tests/support/saml-idp.ts: xml-crypto, a certificate made at start): the owner configures the
 * IdP by its metadata and proves the domain; a person signs in from svc's sign-in page in chromium
 * and lands signed in, their account made with the role their group maps to; and a generated table
 * of hostile Responses (wrapped, unsigned, signed by another key, altered after signing, replayed,
 * for another audience, recipient, destination or request, unsolicited, expired, not yet valid, at
 * an unproven domain, too large) is each refused with a page saying why, and nothing provisioned.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { BUCKETS } from '@svc/limits';
import { createSsoStore, proofName, proofValue, samlServiceProvider, ssoSettings, type SamlServiceProvider } from '@svc/sso';
import { PASSWORD, type Stack } from '../support/stack.ts';
import { assertionXml, startSamlIdp, type ResponseSpec } from '../support/saml-idp.ts';
import { axeViolations } from '../support/axe.ts';
import { shot, signInOnPage, startStackAndBrowser, stopStackAndBrowser } from './browser.ts';
import { ssoSignIn } from './sso-pages.ts';

const WS = 'samlco';
const OTHER = 'samlother';
const DOMAIN = 'samlco.test';

const dns = new Map<string, string[][]>();
let stack: Stack;
let browser: Browser;
let idp: Awaited<ReturnType<typeof startSamlIdp>>;
let sp: SamlServiceProvider;
let ownerEmail: string;
let settings: ReturnType<typeof ssoSettings>;
let actor: { userId: string; email: string; source: string };
let serial = 0;
const fresh = (name: string) => `${name}-${++serial}@${DOMAIN}`;

before(async () => {
  ({ stack, browser } = await startStackAndBrowser({}, { authResolveTxt: async (name) => dns.get(name) ?? [] }));
  idp = await startSamlIdp();
  sp = samlServiceProvider(stack.authUrl, WS);
  ownerEmail = `owner-${Date.now()}@elsewhere.test`;
  const owner = await stack.accounts.users.create({ email: ownerEmail, password: PASSWORD, emailVerified: true });
  await stack.accounts.workspaces.create({ slug: WS, owner: owner.id });
  await stack.accounts.workspaces.create({ slug: OTHER, owner: owner.id });
  await stack.accounts.workspaces.createProject({ slug: `${WS}-docs`, workspace: WS });
  await stack.accounts.workspaces.createProject({ slug: `${WS}-wiki`, workspace: WS });
  settings = ssoSettings({
    accounts: stack.accounts,
    store: createSsoStore(stack.client, stack.config.cookieKeys),
    resolveTxt: async (name) => dns.get(name) ?? [],
    now: Date.now,
  });
  actor = { userId: owner.id, email: owner.email, source: '127.0.0.1' };
  await settings.configureProvider(actor, WS, { kind: 'saml', saml: { metadataXml: idp.metadataXml } });
  const claim = await settings.claimDomain(actor, WS, DOMAIN);
  dns.set(proofName(DOMAIN), [[proofValue(claim.token)]]);
  await settings.verifyDomain(actor, WS, DOMAIN);
  await settings.setPolicy(actor, WS, { defaultRole: 'VIEWER', required: false, groupRoles: [{ group: 'engineers', role: 'EDITOR' }] });
});
after(async () => {
  await idp?.close();
  await stopStackAndBrowser(stack, browser);
});

/** The role of `email` on each of the workspace's projects ([] when they have no account). */
async function rolesOf(email: string): Promise<string[]> {
  const user = await stack.accounts.users.findByEmail(email);
  if (!user) return [];
  const roles: string[] = [];
  for (const slug of await stack.accounts.workspaces.projectsOf(WS)) {
    const project = await stack.accounts.workspaces.getProject(slug);
    if (project) roles.push(await stack.accounts.workspaces.roleOf(user.id, project));
  }
  return roles;
}

test('SP-initiated sign-in in chromium: the IdP posts a signed assertion, the person lands signed in with their mapped role', async () => {
  const email = fresh('ann');
  idp.directory.set('ann', { email, groups: ['engineers', 'everyone'] });
  const page = await (await browser.newContext()).newPage();
  await ssoSignIn(page, stack.authUrl, email, 'ann');
  await page.waitForURL((u) => u.pathname.startsWith('/dashboard'));
  const user = await stack.accounts.users.findByEmail(email);
  assert.ok(user?.emailVerifiedAt, 'the account is made, its address proven by the IdP');
  assert.deepEqual(await rolesOf(email), ['EDITOR', 'EDITOR'], 'the group engineers maps to EDITOR on each project');
  const entries = (await stack.accounts.audit.page(WS, { limit: 100 })).entries;
  const signedIn = entries.find((e) => e.action === 'sso.signed_in' && e.target === `user:${email}`);
  assert.equal(signedIn?.detail?.['kind'], 'saml');
  assert.equal(idp.last()?.issuer, sp.entityId, 'the AuthnRequest names the workspace SP');
  assert.equal(idp.last()?.acsUrl, sp.acsUrl);
  await page.context().close();
});

test("the SP's metadata names its entity id and ACS and asks for signed assertions", async () => {
  const res = await fetch(sp.metadataUrl);
  assert.equal(res.status, 200);
  const xml = await res.text();
  assert.match(xml, new RegExp(`entityID="${sp.entityId}"`));
  assert.match(xml, new RegExp(`Location="${sp.acsUrl}"`));
  assert.match(xml, /WantAssertionsSigned="true"/);
  const none = await fetch(samlServiceProvider(stack.authUrl, 'no-such-ws').metadataUrl);
  assert.equal(none.status, 404);
});

/** A sign-in started from svc's sign-in page, stopped at the IdP: the AuthnRequest and the browser that sent it. */
async function started(email: string): Promise<{ page: Page; requestId: string }> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${stack.authUrl}/signin?return=${encodeURIComponent('/dashboard')}`);
  await page.fill('#email', email);
  await page.click('button[name=sso]');
  await page.waitForSelector('text=Company sign-in');
  const request = idp.last();
  assert.ok(request?.id, 'the IdP read the AuthnRequest');
  return { page, requestId: request.id };
}

/** POSTs a Response to the ACS from the browser's context (its cookies); the answer unfollowed. */
async function post(page: Page, xml: string, acs = sp.acsUrl) {
  const res = await page.context().request.post(acs, { form: { SAMLResponse: Buffer.from(xml).toString('base64') }, maxRedirects: 0 });
  return { status: res.status(), location: res.headers()['location'] ?? '', text: await res.text() };
}

const honest = (requestId: string, email: string): ResponseSpec => ({
  inResponseTo: requestId,
  acsUrl: sp.acsUrl,
  audience: sp.entityId,
  nameId: email,
});

/** Completes an accepted answer in its browser: the step back, then signed in. */
async function complete(page: Page, location: string): Promise<void> {
  assert.match(location, /\/sso\/saml\/samlco\/done\?code=/);
  await page.goto(new URL(location, stack.authUrl).href);
  await page.waitForURL((u) => u.pathname.startsWith('/dashboard'));
}

/** The signed assertion of a Response, and the Response around where it stood. */
function cut(xml: string): { head: string; assertion: string; tail: string } {
  const from = xml.indexOf('<saml:Assertion');
  const to = xml.lastIndexOf('</saml:Assertion>') + '</saml:Assertion>'.length;
  return { head: xml.slice(0, from), assertion: xml.slice(from, to), tail: xml.slice(to) };
}

interface Hostile {
  name: string;
  /** The Response sent, from the honest spec of this sign-in and the row's address. */
  make(spec: ResponseSpec, email: string): string;
  refused: RegExp;
  status?: number;
  /** Addresses that must have no account after the row (besides the row's own). */
  alsoNone?: (email: string) => string[];
}

const SIGNATURE = /not signed by your company(&#39;|')s identity provider/;
const evil = (email: string) => email.replace(/^[^@]+/, 'boss');

/** XML signature wrapping (docs/security.md "SAML"): an unsigned assertion beside or around the signed one. */
const WRAPPING: Hostile[] = [
  {
    name: 'a second, unsigned assertion before the signed one',
    make: (s, e) => {
      const { head, assertion, tail } = cut(idp.response(s));
      return head + assertionXml({ ...s, nameId: evil(e) }, idp.entityId) + assertion + tail;
    },
    refused: SIGNATURE,
    alsoNone: (e) => [evil(e)],
  },
  {
    name: 'a second, unsigned assertion after the signed one',
    make: (s, e) => {
      const { head, assertion, tail } = cut(idp.response(s));
      return head + assertion + assertionXml({ ...s, nameId: evil(e) }, idp.entityId) + tail;
    },
    refused: SIGNATURE,
    alsoNone: (e) => [evil(e)],
  },
  {
    name: 'the signed assertion moved into Extensions, an unsigned one in its place',
    make: (s, e) => {
      const { head, assertion, tail } = cut(idp.response(s));
      const moved = head.replace('<samlp:Status>', `<samlp:Extensions>${assertion}</samlp:Extensions><samlp:Status>`);
      return moved + assertionXml({ ...s, nameId: evil(e) }, idp.entityId) + tail;
    },
    refused: SIGNATURE,
    alsoNone: (e) => [evil(e)],
  },
  {
    name: 'the signed assertion moved inside an unsigned one of the same ID carrying its signature',
    make: (s, e) => {
      const id = `_a${'1'.repeat(32)}`;
      const { head, assertion, tail } = cut(idp.response({ ...s, assertionId: id }));
      const signature = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(assertion)?.[0] ?? '';
      const outer = assertionXml({ ...s, nameId: evil(e), assertionId: id }, idp.entityId)
        .replace('</saml:Issuer>', `</saml:Issuer>${signature}`)
        .replace('</saml:Assertion>', `<saml:Advice>${assertion}</saml:Advice></saml:Assertion>`);
      return head + outer + tail;
    },
    refused: SIGNATURE,
    alsoNone: (e) => [evil(e)],
  },
  {
    name: 'a comment inside the signed NameID (the text before it names another address)',
    make: (s, e) => {
      // Signed for victim@samlco.test.evil.test; cut by a comment, a parser reading the first
      // text node would see victim@samlco.test (CVE-2017-11428's class).
      const victim = `${evil(e).replace('boss', 'victim')}.evil.test`;
      return idp.response({ ...s, nameId: victim }).replace(`${DOMAIN}.evil.test<`, `${DOMAIN}<!---->.evil.test<`);
    },
    refused: /evil\.test is not a domain this workspace proved/,
    alsoNone: (e) => [evil(e).replace('boss', 'victim')],
  },
];

const ANSWERS: Hostile[] = [
  { name: 'unsigned', make: (s) => idp.response({ ...s, signer: 'none' }), refused: SIGNATURE },
  { name: 'signed by another key', make: (s) => idp.response({ ...s, signer: 'other' }), refused: SIGNATURE },
  {
    name: 'the NameID changed after signing (digest mismatch)',
    make: (s, e) => idp.response(s).replace(`>${e}<`, `>${evil(e)}<`),
    refused: SIGNATURE,
    alsoNone: (e) => [evil(e)],
  },
  {
    name: 'signed, but by the IdP for another issuer name',
    make: (s) => idp.response({ ...s, issuer: 'https://elsewhere.example/idp' }),
    refused: /issued by another identity provider/,
  },
  {
    name: 'for another audience',
    make: (s) => idp.response({ ...s, audience: 'https://other.example/sp' }),
    refused: /meant for another service/,
  },
  {
    name: "for another workspace's ACS (recipient)",
    make: (s) => idp.response({ ...s, recipient: samlServiceProvider(stack.authUrl, 'other').acsUrl }),
    refused: /meant for another recipient/,
  },
  {
    name: 'sent to another destination',
    make: (s) => idp.response({ ...s, destination: 'https://other.example/acs' }),
    refused: /sent to another address/,
  },
  {
    name: 'answering a request never made',
    make: (s) => idp.response({ ...s, inResponseTo: '_never-asked' }),
    refused: /expired or was already used/,
  },
  {
    name: 'unsolicited (IdP-initiated)',
    make: (s) => idp.response({ ...s, inResponseTo: null, subjectInResponseTo: null }),
    refused: /started at the identity provider are not accepted/,
  },
  {
    name: "the signed confirmation answering another request than the Response's",
    make: (s) => idp.response({ ...s, subjectInResponseTo: '_another-request' }),
    refused: /not for this sign-in/,
  },
  {
    name: 'expired (NotOnOrAfter ten minutes ago)',
    make: (s) => idp.response({ ...s, notBefore: new Date(Date.now() - 20 * 60_000), notOnOrAfter: new Date(Date.now() - 10 * 60_000) }),
    refused: /expired or not yet valid/,
  },
  {
    name: 'not yet valid (NotBefore in ten minutes)',
    make: (s) => idp.response({ ...s, notBefore: new Date(Date.now() + 10 * 60_000), notOnOrAfter: new Date(Date.now() + 20 * 60_000) }),
    refused: /expired or not yet valid/,
  },
  {
    name: 'an address at a domain the workspace did not prove',
    make: (s, e) => idp.response({ ...s, nameId: e.replace(DOMAIN, 'unproven.test') }),
    refused: /unproven\.test is not a domain this workspace proved/,
    alsoNone: (e) => [e.replace(DOMAIN, 'unproven.test')],
  },
  {
    name: 'larger than the ACS reads',
    make: (s) => idp.response(s).replace('<samlp:Status>', `<!--${'x'.repeat(300 * 1024)}--><samlp:Status>`),
    refused: /too large/i,
    status: 413,
  },
];

describe('hostile Responses are refused with a page saying why, and nothing is provisioned', () => {
  for (const row of [...WRAPPING, ...ANSWERS]) {
    test(row.name, async () => {
      const email = fresh('row');
      const { page, requestId } = await started(email);
      const before = (await stack.accounts.audit.page(WS, { limit: 200 })).entries.length;
      let answer = await post(page, row.make(honest(requestId, email), email));
      // An answer whose signature and conditions hold goes on to the step back, where the one
      // completion both protocols share judges the address (provision.ts): its refusal is shown there.
      if (answer.status === 303) {
        const done = await page.goto(new URL(answer.location, stack.authUrl).href);
        answer = { status: done?.status() ?? 0, location: page.url(), text: await page.content() };
      }
      assert.equal(answer.status, row.status ?? (answer.status === 403 ? 403 : 400), `${answer.status} ${answer.location}`);
      assert.match(answer.text, row.refused);
      if (answer.status !== 413) assert.match(answer.text, /role="alert"/);
      for (const address of [email, ...(row.alsoNone?.(email) ?? [])]) {
        assert.equal(await stack.accounts.users.findByEmail(address), null, `no account for ${address}`);
      }
      const entries = (await stack.accounts.audit.page(WS, { limit: 200 })).entries;
      assert.ok(!entries.some((e) => e.action === 'sso.signed_in' && e.target === `user:${email}`), 'no sign-in recorded');
      if (answer.status !== 413) assert.ok(entries.length > before, 'the refusal is in the workspace audit log');
      await page.context().close();
    });
  }
});

describe('replays', () => {
  test('the same Response twice: the second is refused (its request was answered)', async () => {
    const email = fresh('replay');
    const { page, requestId } = await started(email);
    const xml = idp.response(honest(requestId, email));
    const first = await post(page, xml);
    assert.equal(first.status, 303);
    await complete(page, first.location);
    const again = await post(page, xml);
    assert.equal(again.status, 400);
    assert.match(again.text, /expired or was already used/);
    await page.context().close();
  });

  test("an assertion ID accepted before, in a new Response to a new request: refused until the assertion's end", async () => {
    const email = fresh('reuse');
    const id = `_a${Date.now().toString(16)}reused`;
    const one = await started(email);
    const first = await post(one.page, idp.response({ ...honest(one.requestId, email), assertionId: id }));
    await complete(one.page, first.location);
    const two = await started(email);
    const again = await post(two.page, idp.response({ ...honest(two.requestId, email), assertionId: id }));
    assert.equal(again.status, 400);
    assert.match(again.text, /already used/);
    const ttl = await stack.client.ttl(`svc:sso:saml:assertion:${WS}:${digest(`${idp.entityId}\n${id}`)}`);
    assert.ok(ttl > 0 && ttl <= 5 * 60 + 1, `the assertion id is kept until its NotOnOrAfter (${ttl} s)`);
    await one.page.context().close();
    await two.page.context().close();
  });

  test('the step back in another browser than the one that started the sign-in is refused', async () => {
    const email = fresh('csrf');
    const { page, requestId } = await started(email);
    const answer = await post(page, idp.response(honest(requestId, email)));
    const elsewhere = await (await browser.newContext()).newPage();
    const res = await elsewhere.goto(new URL(answer.location, stack.authUrl).href);
    assert.equal(res?.status(), 400);
    assert.match(await elsewhere.content(), /started in another browser/);
    assert.equal(await stack.accounts.users.findByEmail(email), null);
    await page.context().close();
    await elsewhere.context().close();
  });
});

function digest(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

test("the owner's SSO page: SAML by pasted metadata, svc's SP to register shown, axe-clean at desktop and phone sizes", async () => {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${stack.authUrl}/dashboard/workspaces/${OTHER}/sso`);
  await signInOnPage(page, ownerEmail, PASSWORD);
  await page.waitForSelector('#metadata_xml');
  const otherSp = samlServiceProvider(stack.authUrl, OTHER);
  assert.equal(await page.textContent('#saml-metadata-url'), otherSp.metadataUrl, 'the SP metadata URL is shown before any IdP is saved');
  assert.equal(await page.textContent('#saml-acs-url'), otherSp.acsUrl);
  // A certificate that is not one: refused, naming the field, nothing saved.
  await page.fill('#entity_id', 'https://idp.example/entity');
  await page.fill('#sso_url', 'https://idp.example/sso');
  await page.fill('#certificate', '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----');
  await page.click('form[action$="/sso/saml"] button[type=submit]');
  await page.waitForSelector('text=signing certificate must be an X.509 certificate');
  assert.equal(await stack.client.hget(`svc:sso:config:${OTHER}`, 'kind'), null);
  await page.fill('#entity_id', '');
  await page.fill('#sso_url', '');
  await page.fill('#certificate', '');
  await page.fill('#metadata_xml', idp.metadataXml);
  await page.click('form[action$="/sso/saml"] button[type=submit]');
  await page.waitForSelector('text=Provider saved');
  assert.equal(await page.inputValue('#entity_id'), idp.entityId);
  assert.equal(await page.inputValue('#sso_url'), idp.ssoUrl);
  assert.match(await page.content(), /now SAML 2\.0/);
  for (const [size, viewport] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    await page.setViewportSize(viewport);
    await shot(page, `sso-saml-settings-${size}`);
    assert.deepEqual(await axeViolations(page), [], `the SAML settings pass axe (${size})`);
  }
  const configured = (await stack.accounts.audit.page(OTHER, { limit: 50 })).entries.find((e) => e.action === 'sso.configured');
  assert.equal(configured?.detail?.['kind'], 'saml');
  await page.context().close();
});

test("a workspace's ACS answers at most samlAcsPerWorkspace a minute; another workspace's ACS is not slowed", async () => {
  await settings.configureProvider(actor, OTHER, { kind: 'saml', saml: { metadataXml: idp.metadataXml } });
  const garbage = { SAMLResponse: Buffer.from('<not-saml/>').toString('base64') };
  const postTo = (ws: string) =>
    fetch(samlServiceProvider(stack.authUrl, ws).acsUrl, { method: 'POST', body: new URLSearchParams(garbage), redirect: 'manual' });
  let refusedAt = 0;
  for (let n = 1; n <= BUCKETS.samlAcsPerWorkspace.limit + 1 && !refusedAt; n++) {
    const res = await postTo(WS);
    await res.text();
    if (res.status === 429) refusedAt = n;
    else assert.equal(res.status, 400);
  }
  assert.ok(refusedAt > 0, 'the bucket refuses within its limit');
  const busy = await postTo(WS);
  assert.equal(busy.status, 429);
  assert.match(await busy.text(), /Too many sign-in answers/);
  const other = await postTo(OTHER);
  assert.equal(other.status, 400, "the other workspace's answers are still read");
  await other.text();
});
