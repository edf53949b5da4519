/**
 * Delegated OAuth tokens at the gateway (RFC 8693 token exchange; docs/auth-service.md "Delegation
 * (token exchange)"): the resolved caller carries the chain of acting clients for audit; a
 * delegated token stands only while every token it descends from is live for the same person and
 * resource, and the line is what its chain says and at most DELEGATION_MAX_DEPTH long; a cached
 * answer is dropped on every replica when any ancestor's record or grant is announced gone. Tokens
 * are planted as the auth-service stores them (docs/redis-schema.md), through the record codec.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  delegationClaims,
  DELEGATION_MAX_DEPTH,
  INVALIDATES,
  INVALIDATION_CHANNEL,
  oidcDigest,
  oidcRecordKey,
  type Accounts,
} from '@svc/accounts';
import { generateCredential } from '@svc/credentials';
import { waitFor } from '@svc/testkit';
import { createOAuthTokenVerifier } from '../src/auth/oauth-token-verifier.ts';
import { createResolver } from '../src/auth/resolve-credential.ts';
import { call, post, startFixture, type GatewayFixture } from './support.ts';

let f: GatewayFixture;
let project: string;
let otherProject: string;
let ownerId: string;
let strangerId: string;

before(async () => {
  f = await startFixture({ AUTH_CACHE_TTL_MS: '60000', RATE_LIMIT_SCALE: '1000' });
  const tag = Math.random().toString(36).slice(2, 8);
  const owner = await f.accounts.users.create({
    emailVerified: true,
    email: `owner-${tag}@example.com`,
    password: 'correct horse battery',
  });
  const stranger = await f.accounts.users.create({
    emailVerified: true,
    email: `other-${tag}@example.com`,
    password: 'correct horse battery',
  });
  project = `delegated-${tag}`;
  otherProject = `delegated-other-${tag}`;
  await f.accounts.workspaces.createProject({ slug: project, workspace: owner.workspace });
  await f.accounts.workspaces.createProject({ slug: otherProject, workspace: owner.workspace });
  ownerId = owner.id;
  strangerId = stranger.id;
});
after(() => f.close());

interface Planted {
  token: string;
  digest: string;
  grantId: string;
  chain: string[];
}

/**
 * An access token as the auth-service stores it, with its Grant: the root of a line (no parent),
 * or delegated from `parent` to `clientId` (its chain the parent's with the client in front).
 */
async function plant(
  t: { parent?: Planted; clientId?: string; accountId?: string; slug?: string; expSeconds?: number; extra?: unknown } = {},
): Promise<Planted> {
  const token = generateCredential('access_token');
  const grantId = `grant-${Math.random().toString(36).slice(2)}`;
  const aud = `${f.config.baseUrl}/mcp/${t.slug ?? project}`;
  const accountId = t.accountId ?? ownerId;
  const clientId = t.clientId ?? 'svc-mcp';
  const chain = t.parent ? [clientId, ...t.parent.chain] : [clientId];
  const grant = { kind: 'Grant', accountId, clientId, resources: { [aud]: 'mcp:write' } };
  await f.redis.client.hset(oidcRecordKey('Grant', grantId), 'payload', JSON.stringify(grant));
  const extra = t.extra ?? (t.parent ? delegationClaims(chain, t.parent.digest) : undefined);
  const payload = {
    kind: 'AccessToken',
    jti: token,
    exp: Math.floor(Date.now() / 1000) + (t.expSeconds ?? 3600),
    accountId,
    clientId,
    grantId,
    aud,
    scope: 'mcp:write',
    ...(extra === undefined ? {} : { extra }),
  };
  await f.redis.client.hset(oidcRecordKey('AccessToken', token), 'payload', JSON.stringify(payload));
  return { token, digest: oidcDigest(token), grantId, chain };
}

/** A line of `length` delegations below a root token, each to its own client. */
async function line(length: number): Promise<Planted[]> {
  const tokens = [await plant()];
  for (let i = 1; i <= length; i++) tokens.push(await plant({ parent: tokens[i - 1]!, clientId: `agent-${i}` }));
  return tokens;
}

const resolverOf = (accounts: Accounts) =>
  createResolver({
    accounts,
    oauth: createOAuthTokenVerifier({ redis: f.redis.client, baseUrl: f.config.baseUrl }),
    legacyCredentials: false,
  });

const callWith = (url: string, token: string, slug = project) =>
  post(url, `/mcp/${slug}`, call('svc_help'), { Authorization: `Bearer ${token}` });

test('the resolved caller of a delegated token carries its chain of acting clients and its ancestors', async () => {
  const tokens = await line(2);
  const resolve = resolverOf(f.accounts);
  const leaf = tokens[2]!;
  const resolution = await resolve(leaf.token, { kind: 'project', slug: project });
  assert.ok(resolution.ok, JSON.stringify(resolution));
  assert.deepEqual(resolution.caller.chain, ['agent-2', 'agent-1', 'svc-mcp']);
  assert.equal(resolution.caller.clientId, 'agent-2');
  assert.deepEqual(resolution.caller.ancestors, [
    { digest: tokens[1]!.digest, grantId: tokens[1]!.grantId },
    { digest: tokens[0]!.digest, grantId: tokens[0]!.grantId },
  ]);
  // The root is a person's token like any other: no chain.
  const root = await resolve(tokens[0]!.token, { kind: 'project', slug: project });
  assert.ok(root.ok && root.caller.chain === undefined);
  assert.equal((await callWith(f.url, leaf.token)).status, 200);
});

test('a delegated token is refused unless its whole line is live, for the same person and resource, and as long as its chain says', async () => {
  const root = await plant();
  const cases: [string, () => Promise<string>][] = [
    ['parent record gone', async () => (await plant({ parent: { ...root, digest: oidcDigest('svc_at_gone'), token: 'x' } })).token],
    ['parent expired', async () => (await plant({ parent: await plant({ expSeconds: -5 }), clientId: 'agent' })).token],
    ["parent of another person's", async () => (await plant({ parent: await plant({ accountId: strangerId }), clientId: 'agent' })).token],
    ['parent for another project', async () => (await plant({ parent: await plant({ slug: otherProject }), clientId: 'agent' })).token],
    [
      "parent's grant gone",
      async () => {
        const parent = await plant();
        await f.redis.client.del(oidcRecordKey('Grant', parent.grantId));
        return (await plant({ parent, clientId: 'agent' })).token;
      },
    ],
    [
      'an act claim that is not nested subs',
      async () => (await plant({ clientId: 'agent', extra: { act: { sub: 'agent', act: 'svc-mcp' }, svc_parent: root.digest } })).token,
    ],
    [
      'an act claim without a parent',
      async () => (await plant({ clientId: 'agent', extra: { act: { sub: 'agent', act: { sub: 'svc-mcp' } } } })).token,
    ],
    [
      'an act claim naming another client first',
      async () => (await plant({ clientId: 'agent', extra: delegationClaims(['someone', 'svc-mcp'], root.digest) })).token,
    ],
    [
      'a chain naming other actors than its line',
      async () => {
        const middle = await plant({ parent: root, clientId: 'middle' });
        return (await plant({ clientId: 'agent', extra: delegationClaims(['agent', 'impostor', 'svc-mcp'], middle.digest) })).token;
      },
    ],
    [
      'a chain longer than its line',
      async () => (await plant({ clientId: 'agent', extra: delegationClaims(['agent', 'middle', 'svc-mcp'], root.digest) })).token,
    ],
    [
      'a line deeper than the cap',
      async () => {
        const tokens = [await plant()];
        for (let i = 1; i <= DELEGATION_MAX_DEPTH + 1; i++) tokens.push(await plant({ parent: tokens[i - 1]!, clientId: `agent-${i}` }));
        return tokens.at(-1)!.token;
      },
    ],
  ];
  const resolve = resolverOf(f.accounts);
  for (const [name, make] of cases) {
    const token = await make();
    const resolution = await resolve(token, { kind: 'project', slug: project });
    assert.equal(resolution.ok, false, name);
    const res = await callWith(f.url, token);
    assert.equal(res.status, 401, `${name}: ${res.text}`);
  }
  // The control: a well-formed child of the same root is accepted.
  assert.equal((await callWith(f.url, (await plant({ parent: root, clientId: 'agent' })).token)).status, 200);
});

test("an ancestor's record announced gone drops the cached child on every replica", async () => {
  const replica = await f.startReplica();
  const [, middle, leaf] = await line(2);
  // Both replicas have the leaf cached (60 s here: only the message can drop it).
  for (const url of [f.url, replica.url]) assert.equal((await callWith(url, leaf!.token)).status, 200);
  // What the auth-service's adapter does when a token is revoked (RFC 7009): the record goes, then the message.
  await f.redis.client.del(oidcRecordKey('AccessToken', middle!.token));
  await f.redis.client.publish(INVALIDATION_CHANNEL, INVALIDATES.oauthRecord('AccessToken', middle!.digest));
  for (const url of [f.url, replica.url])
    await waitFor(async () => (await callWith(url, leaf!.token)).status === 401, {
      timeout: 1000,
      message: `${url} to refuse a token whose parent was revoked`,
    });
});

test("an ancestor's grant revoked drops the cached child on every replica", async () => {
  const replica = await f.startReplica();
  const [root, , leaf] = await line(2);
  for (const url of [f.url, replica.url]) assert.equal((await callWith(url, leaf!.token)).status, 200);
  // The authorized-apps revocation of the root's grant: only the root's own records are planted
  // under it here, so the leaf is dropped by its ancestors' tags alone.
  await f.redis.client.sadd(`svc:oidc:grant-keys:${root!.grantId}`, oidcRecordKey('AccessToken', root!.token));
  await f.accounts.oauthGrants.revoke(root!.grantId);
  for (const url of [f.url, replica.url])
    await waitFor(async () => (await callWith(url, leaf!.token)).status === 401, {
      timeout: 1000,
      message: `${url} to refuse a token whose root grant was revoked`,
    });
});
