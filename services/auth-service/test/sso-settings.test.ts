/**
 * A workspace owner's SSO settings against a real Redis (docs/auth-service.md "Single sign-on"):
 * the bounds SSO_MAX_DOMAINS and SSO_MAX_GROUP_MAPPINGS, one workspace per proven domain (the first
 * to prove it), only the owner, and "members must use SSO" only once a domain is proven. The
 * provider's discovery is the one part given here (sso-discovery.unit.test.ts and
 * tests/auth/sso.test.ts run the real one).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Accounts, Redis } from '@svc/accounts';
import { connectRedis, createAccounts } from '@svc/accounts';
import { startRedis, type RedisFixture } from '@svc/testkit';
import {
  SSO_MAX_DOMAINS,
  SSO_MAX_GROUP_MAPPINGS,
  proofName,
  proofValue,
  SsoError,
  ssoSettings,
  type SettingsActor,
  createSsoStore,
} from '@svc/sso';
import type { Discover } from '../src/sso/provider-client.ts';

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
const dns = new Map<string, string[][]>();
const discover: Discover = async () => ({}) as Awaited<ReturnType<Discover>>;

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url, { name: 'sso-settings-test' });
  accounts = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4 });
});
after(async () => {
  client.disconnect();
  await redis.stop();
});

const settingsOf = () =>
  ssoSettings({
    accounts,
    store: createSsoStore(client, ['k'.repeat(32)]),
    discover,
    resolveTxt: async (name) => dns.get(name) ?? [],
    now: Date.now,
  });

async function owner(slug: string): Promise<SettingsActor> {
  const user = await accounts.users.create({ email: `${slug}-owner@elsewhere.test`, emailVerified: true });
  await accounts.workspaces.create({ slug, owner: user.id });
  return { userId: user.id, email: user.email, source: '192.0.2.1' };
}

async function refused(work: Promise<unknown>, status: number, message: RegExp): Promise<void> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof SsoError, `refused, got ${String(err)}`);
  assert.equal(err.status, status);
  assert.match(err.message, message);
}

test(`a workspace claims at most SSO_MAX_DOMAINS (${SSO_MAX_DOMAINS}) domains`, async () => {
  const sso = settingsOf();
  const a = await owner('many');
  for (let i = 0; i < SSO_MAX_DOMAINS; i++) await sso.claimDomain(a, 'many', `d${i}.many.test`);
  await refused(sso.claimDomain(a, 'many', 'one-more.test'), 400, new RegExp(`at most ${SSO_MAX_DOMAINS} domains`));
  await refused(sso.claimDomain(a, 'many', 'not a domain'), 400, /is not a domain name/);
});

test(`a policy holds at most SSO_MAX_GROUP_MAPPINGS (${SSO_MAX_GROUP_MAPPINGS}) group mappings, each to a known role`, async () => {
  const sso = settingsOf();
  const a = await owner('groups');
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ group: `g${i}`, role: 'EDITOR' }));
  await sso.setPolicy(a, 'groups', { defaultRole: 'NONE', required: false, groupRoles: rows(SSO_MAX_GROUP_MAPPINGS) });
  await refused(
    sso.setPolicy(a, 'groups', { defaultRole: 'NONE', required: false, groupRoles: rows(SSO_MAX_GROUP_MAPPINGS + 1) }),
    400,
    new RegExp(`At most ${SSO_MAX_GROUP_MAPPINGS} group mappings`),
  );
  await refused(sso.setPolicy(a, 'groups', { defaultRole: 'OWNER', required: false, groupRoles: [] }), 400, /default role must be/);
  await refused(
    sso.setPolicy(a, 'groups', { defaultRole: 'VIEWER', required: true, groupRoles: [] }),
    400,
    /Configure the provider before requiring SSO/,
  );
});

test('a domain belongs to the first workspace that proves it; only the owner changes settings', async () => {
  const sso = settingsOf();
  const first = await owner('first');
  const second = await owner('second');
  const c1 = await sso.claimDomain(first, 'first', 'Shared.TEST');
  const c2 = await sso.claimDomain(second, 'second', 'shared.test');
  assert.equal(c1.domain, 'shared.test');
  await refused(sso.verifyDomain(first, 'first', 'shared.test'), 400, /No TXT record _svc-sso\.shared\.test/);
  dns.set(proofName('shared.test'), [[proofValue(c1.token)], [proofValue(c2.token)]]);
  await sso.verifyDomain(second, 'second', 'shared.test');
  await refused(sso.verifyDomain(first, 'first', 'shared.test'), 409, /already proven by another workspace/);
  await refused(sso.claimDomain(second, 'first', 'x.test'), 403, /Only the owner of first/);
  await sso.setPolicy(second, 'second', { defaultRole: 'VIEWER', required: false, groupRoles: [] });
  // Released, the domain can be proven by another.
  await sso.releaseDomain(second, 'second', 'shared.test');
  await sso.verifyDomain(first, 'first', 'shared.test');
  assert.equal(await client.get('svc:sso:domain:shared.test'), 'first');
  const actions: string[] = (await accounts.audit.page('second', { limit: 50 })).entries.map((e) => e.action);
  for (const a of ['sso.domain_claimed', 'sso.domain_verified', 'sso.policy_changed', 'sso.domain_released'])
    assert.ok(actions.includes(a), a);
});
