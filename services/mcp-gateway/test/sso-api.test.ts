/**
 * A workspace's single sign-on settings on the management API (docs/management.md "Single
 * sign-on") on a running gateway and a real Redis: the owner's personal key configures the
 * provider, the policy and the domains, each change audited; another workspace's owner, a project
 * key, an OAuth-less member and a bad body are refused; the client secret is in no answer and no
 * audit entry, and it is sealed under COOKIE_KEYS as the auth-service reads it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis } from '@svc/accounts';
import { createSsoStore, SSO_MAX_GROUP_MAPPINGS, SK, type ResolveTxt } from '@svc/sso';
import { SAML_TEST_CERT, samlTestMetadata } from '@svc/testkit';
import { refusal, send, success, typedClient, type Answered } from './management-client.ts';
import type { Refusal } from '@svc/management/contract';
import { seed, startFixture, type GatewayFixture, type Seeded } from './support.ts';

const SECRET = 'the-client-secret-7f3a9c';
/** The DNS the gateway reads: name -> TXT records (no outbound lookups in tests). */
const dns = new Map<string, string[][]>();
const resolveTxt: ResolveTxt = async (name) => dns.get(name) ?? [];

let f: GatewayFixture;
let owner: Seeded;
let personal: string;
let me: ReturnType<typeof typedClient>;
const answered: Answered[] = [];

before(async () => {
  f = await startFixture({}, { resolveTxt });
  owner = await seed(f.accounts, { plan: 'TEAM' });
  personal = (await f.accounts.keys.createUserKey({ userId: owner.userId })).key;
  me = typedClient(f.url, personal, answered);
});
after(() => f.close());

const ws = () => ({ workspace: owner.workspace });
const PROVIDER = { issuer: 'https://idp.example.com', clientId: 'svc-client', secret: SECRET };

async function auditEntries(workspace: string) {
  return (await f.accounts.audit.page(workspace, { limit: 500 })).entries;
}

test('the owner configures the provider, the policy and a domain; each change is audited, the secret nowhere', async () => {
  const empty = success(await me.ssoSettings({ params: ws() })).body;
  assert.deepEqual(empty, { provider: null, policy: { defaultRole: 'VIEWER', required: false, groupRoles: [] }, domains: [] });

  const configured = success(await me.configureSsoProvider({ params: ws(), body: PROVIDER })).body;
  assert.equal(configured.provider?.issuer, PROVIDER.issuer);
  assert.equal(configured.provider?.clientId, PROVIDER.clientId);

  // Sealed under COOKIE_KEYS: the auth-service's store (same config) opens it.
  const redis = connectRedis(f.redis.url, { name: 'sso-api-test' });
  try {
    assert.equal(await createSsoStore(redis, f.config.cookieKeys).secret(owner.workspace), SECRET);
    assert.ok(!JSON.stringify(await redis.hgetall(SK.config(owner.workspace))).includes(SECRET), 'Redis holds it sealed');
  } finally {
    redis.disconnect();
  }

  // An empty secret keeps the one saved.
  success(await me.configureSsoProvider({ params: ws(), body: { issuer: PROVIDER.issuer, clientId: 'svc-client-2' } }));

  const claimed = success(await me.claimSsoDomain({ params: ws(), body: { domain: 'Example.COM' } }), 201).body;
  assert.equal(claimed.domain, 'example.com');
  assert.equal(claimed.record.name, '_svc-sso.example.com');
  assert.equal(claimed.verifiedAt, null);
  success(await me.claimSsoDomain({ params: ws(), body: { domain: 'example.com' } }), 200);

  // Not yet published: a 400 saying which record is missing.
  const unproven = refusal(await me.verifySsoDomain({ params: { ...ws(), domain: 'example.com' } }), 400);
  assert.match(unproven.message, /_svc-sso\.example\.com/);
  dns.set(claimed.record.name, [[claimed.record.value]]);
  const proven = success(await me.verifySsoDomain({ params: { ...ws(), domain: 'example.com' } })).body;
  assert.ok(proven.verifiedAt && Math.abs(Date.parse(proven.verifiedAt) - Date.now()) < 60_000);

  const policy = success(
    await me.setSsoPolicy({
      params: ws(),
      body: { defaultRole: 'EDITOR', required: true, groupRoles: [{ group: 'eng', role: 'ADMIN' }] },
    }),
  ).body.policy;
  assert.deepEqual(policy, { defaultRole: 'EDITOR', required: true, groupRoles: [{ group: 'eng', role: 'ADMIN' }] });

  success(await me.claimSsoDomain({ params: ws(), body: { domain: 'other.example' } }), 201);
  assert.deepEqual(success(await me.releaseSsoDomain({ params: { ...ws(), domain: 'other.example' } })).body, {
    domain: 'other.example',
    released: true,
  });
  assert.deepEqual(
    success(await me.ssoSettings({ params: ws() })).body.domains.map((d) => d.domain),
    ['example.com'],
  );

  const entries = await auditEntries(owner.workspace);
  const actions = entries.map((e) => e.action);
  for (const a of ['sso.configured', 'sso.domain_claimed', 'sso.domain_verified', 'sso.policy_changed', 'sso.domain_released'] as const) {
    const entry = entries.find((e) => e.action === a);
    assert.ok(entry, `${a} audited: ${actions.join(',')}`);
    assert.equal(entry.actor, owner.email);
    assert.ok(entry.requestId && entry.source);
  }
  assert.equal(actions.filter((a) => a === 'sso.configured').length, 2);
  assert.ok(!JSON.stringify(entries).includes(SECRET), 'no audit entry holds the secret');
  assert.ok(!answered.some((a) => JSON.stringify(a).includes(SECRET.slice(4))), 'no answer holds the secret');
});

test("another workspace's owner, a project key and a member are refused; nothing changes", async () => {
  const stranger = await seed(f.accounts, { plan: 'TEAM' });
  const strangerKey = (await f.accounts.keys.createUserKey({ userId: stranger.userId })).key;
  const member = await seed(f.accounts);
  await f.accounts.workspaces.setRole(owner.project, member.userId, 'ADMIN');
  const memberKey = (await f.accounts.keys.createUserKey({ userId: member.userId })).key;
  const adminKey = (
    await f.accounts.keys.createProjectKey({ project: owner.project, workspace: owner.workspace, level: 'ADMIN', name: 'a' })
  ).key;
  const before = success(await me.ssoSettings({ params: ws() })).body;
  for (const [who, key] of [
    ["another workspace's owner", strangerKey],
    ['an ADMIN member of a project', memberKey],
    ["an ADMIN project key of the workspace's project", adminKey],
  ] as const) {
    const as = typedClient(f.url, key, answered);
    for (const result of [
      await as.ssoSettings({ params: ws() }),
      await as.configureSsoProvider({ params: ws(), body: { issuer: 'https://evil.example', clientId: 'x', secret: 'y' } }),
      await as.setSsoPolicy({ params: ws(), body: { defaultRole: 'ADMIN' } }),
      await as.claimSsoDomain({ params: ws(), body: { domain: 'evil.example' } }),
      await as.verifySsoDomain({ params: { ...ws(), domain: 'example.com' } }),
      await as.releaseSsoDomain({ params: { ...ws(), domain: 'example.com' } }),
    ]) {
      assert.equal(result.ok, false, `${who} was let through`);
      assert.ok([403, 404].includes(result.status), `${who}: ${result.status}`);
    }
  }
  assert.deepEqual(success(await me.ssoSettings({ params: ws() })).body, before, 'the settings are untouched');
});

test('bad input is a 400 naming the field', async () => {
  const cases: [string, unknown, string][] = [
    ['provider', { clientId: 'x' }, 'issuer'],
    ['provider', { issuer: 'not a url', clientId: 'x', secret: 's' }, 'issuer'],
    ['provider', { issuer: 'https://idp.example.com', clientId: '', secret: 's' }, 'clientId'],
    ['provider', { issuer: 'https://idp.example.com', clientId: 'x', secret: 'x'.repeat(501) }, 'secret'],
    ['policy', { defaultRole: 'OWNER' }, 'defaultRole'],
    ['policy', { defaultRole: 'VIEWER', required: 'yes' }, 'required'],
    [
      'policy',
      {
        defaultRole: 'VIEWER',
        groupRoles: Array.from({ length: SSO_MAX_GROUP_MAPPINGS + 1 }, (_, i) => ({ group: `g${i}`, role: 'VIEWER' })),
      },
      'groupRoles',
    ],
    ['domains', { domain: 'not a domain' }, 'domain'],
    ['domains', {}, 'domain'],
  ];
  for (const [path, body, field] of cases) {
    const res = await send(f.url, answered, 'POST', `/api/v1/workspaces/${owner.workspace}/sso/${path}`, personal, body);
    assert.equal(res.status, 400, `${path} ${JSON.stringify(body).slice(0, 80)}: ${res.status} ${JSON.stringify(res.body)}`);
    const error = (res.body as { error: { field?: string; message: string } }).error;
    assert.equal(error.field, field, `${path} ${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(error)}`);
    assert.ok(!error.message.includes('x'.repeat(100)), 'the message does not echo the input');
  }
});

test('a SAML IdP by its metadata or fields: the view names the IdP and the SP to register; bad input is a 400 naming the field', async () => {
  const saml = {
    kind: 'saml' as const,
    saml: { metadataXml: samlTestMetadata('https://idp.example.com/saml', 'https://idp.example.com/saml/sso') },
  };
  const view = success(await me.configureSsoProvider({ params: ws(), body: saml })).body;
  assert.equal(view.provider?.kind, 'saml');
  assert.equal(view.provider?.issuer, 'https://idp.example.com/saml');
  assert.equal(view.provider?.saml?.ssoUrl, 'https://idp.example.com/saml/sso');
  assert.match(view.provider?.saml?.certificates[0]?.sha256 ?? '', /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  assert.equal(view.provider?.saml?.serviceProvider?.acsUrl, `${f.config.authUrl}/sso/saml/${owner.workspace}/acs`);
  assert.equal(view.provider?.saml?.serviceProvider?.metadataUrl, `${f.config.authUrl}/sso/saml/${owner.workspace}/metadata`);
  const byFields = { entityId: 'https://idp2.example.com', ssoUrl: 'https://idp2.example.com/sso', certificate: SAML_TEST_CERT };
  assert.equal(
    success(await me.configureSsoProvider({ params: ws(), body: { kind: 'saml', saml: byFields } })).body.provider?.issuer,
    byFields.entityId,
  );
  const configured = (await auditEntries(owner.workspace)).filter((e) => e.action === 'sso.configured' && e.detail?.['kind'] === 'saml');
  assert.equal(configured.length, 2, 'each SAML configuration is audited');
  const bad: [Record<string, unknown>, string][] = [
    [{ metadataXml: '<not-metadata/>' }, 'metadataXml'],
    [{ metadataXml: '<!DOCTYPE x [<!ENTITY a "a">]><x>&a;</x>' }, 'metadataXml'],
    [{ ...byFields, ssoUrl: 'not a url' }, 'ssoUrl'],
    [{ ...byFields, certificate: 'bm90IGEgY2VydA==' }, 'certificate'],
    [{ ...byFields, entityId: '', metadataXml: '' }, 'entityId'],
    [{ ...byFields, surprise: 1 }, 'saml|surprise'],
  ];
  for (const [input, field] of bad) {
    const res = await send(f.url, answered, 'POST', `/api/v1/workspaces/${owner.workspace}/sso/provider`, personal, {
      kind: 'saml',
      saml: input,
    });
    assert.equal(res.status, 400, JSON.stringify(input).slice(0, 80));
    assert.match(String((res.body as Refusal).error.field ?? ''), new RegExp(field), JSON.stringify(res.body));
  }
  // The OpenID provider's fields are still required when kind is oidc (or absent).
  const oidc = await send(f.url, answered, 'POST', `/api/v1/workspaces/${owner.workspace}/sso/provider`, personal, { clientId: 'x' });
  assert.equal(oidc.status, 400);
  assert.equal((oidc.body as Refusal).error.field, 'issuer');
});
