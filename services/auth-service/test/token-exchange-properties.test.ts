/**
 * Properties of delegation by token exchange (docs/auth-service.md "Delegation (token exchange)"),
 * over generated parents and requests (fast-check): on every path a delegated token never exceeds
 * its parent (level, resource, lifetime, DPoP key, depth), an exchange within those bounds is never
 * refused, one outside them always is, and revoking any token of a line ends every token below it
 * and none above. Levels are read back from the stored records (the Grant's level for the
 * resource, the token's scope, the person's role), as the gateway reads them.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { oidcRecords, type AccessTokenRecord, type User } from '@svc/accounts';
import { approvedLevel, roleAtLeast, tokenRole, type KeyLevel, type Role } from '@svc/policy';
import fc from 'fast-check';
import { newProject, postForm, startAuth, TEST_PASSWORD, type AuthFixture } from './support.ts';
import {
  ACCESS_TOKEN_TYPE,
  dpopKey,
  dpopProof,
  exchangeRaw,
  introspect,
  mintAccessToken,
  registerSubAgent,
} from './token-exchange-support.ts';

let f: AuthFixture;
let project: Awaited<ReturnType<typeof newProject>>;
let other: Awaited<ReturnType<typeof newProject>>;
const members: Partial<Record<Role, User>> = {};
let agents: string[];
let key: Awaited<ReturnType<typeof dpopKey>>;
let strangerKey: Awaited<ReturnType<typeof dpopKey>>;

before(async () => {
  f = await startAuth();
  project = await newProject(f, 'props');
  other = await newProject(f, 'props-other');
  members.ADMIN = project.user;
  for (const role of ['VIEWER', 'EDITOR'] as const) {
    const user = await f.accounts.users.create({
      emailVerified: true,
      email: `${role.toLowerCase()}-${Date.now()}@example.com`,
      password: TEST_PASSWORD,
    });
    await f.accounts.workspaces.setRole(project.slug, user.id, role);
    members[role] = user;
  }
  agents = [];
  for (const name of ['One', 'Two', 'Three', 'Four']) agents.push(await registerSubAgent(f, `Agent ${name}`));
  key = await dpopKey();
  strangerKey = await dpopKey();
});
after(async () => {
  await f.close();
});

/** A stored access token as the gateway reads it, with its level. */
async function readToken(token: string, role: Role): Promise<{ at: AccessTokenRecord; level: Role } | null> {
  const stored = await oidcRecords.accessToken(f.client, token);
  if (!stored || stored.payload.kind !== 'AccessToken') return null;
  const at = stored.payload;
  const grant = await oidcRecords.grant(f.client, at.grantId);
  if (!grant || typeof at.aud !== 'string') return null;
  return { at, level: tokenRole(role, approvedLevel(grant.resources[at.aud]), at.scope ?? '') };
}

const LEVEL_SCOPES: Record<string, KeyLevel> = { 'mcp:read': 'VIEWER', 'mcp:write': 'EDITOR', 'mcp:admin': 'ADMIN' };

interface Ask {
  scope: string[] | null;
  resource: 'absent' | 'same' | 'other' | 'garbage';
  proof: 'none' | 'parent' | 'stranger';
}

/** Requests mostly within the bounds, so that most steps go on down the line. */
const ask: fc.Arbitrary<Ask> = fc.record({
  scope: fc.option(
    fc.oneof(
      { arbitrary: fc.subarray(['mcp', 'mcp:read', 'mcp:write', 'mcp:admin']), weight: 4 },
      { arbitrary: fc.subarray(['mcp:read', 'openid']), weight: 1 },
    ),
  ),
  resource: fc.oneof(
    { arbitrary: fc.constantFrom<Ask['resource']>('absent', 'same'), weight: 4 },
    { arbitrary: fc.constantFrom<Ask['resource']>('other', 'garbage'), weight: 1 },
  ),
  proof: fc.oneof(
    { arbitrary: fc.constant<Ask['proof']>('parent'), weight: 3 },
    { arbitrary: fc.constantFrom<Ask['proof']>('none', 'stranger'), weight: 2 },
  ),
});

const proofJkt = (a: Ask) => ({ none: undefined, parent: key.jkt, stranger: strangerKey.jkt })[a.proof];

/** Whether the rules allow `a` from a parent at `parentLevel`, `depth` exchanges down, bound to `jkt` or not. */
function allowed(a: Ask, parentLevel: Role, depth: number, jkt: string | undefined): boolean {
  if (depth >= 3 || a.resource === 'other' || a.resource === 'garbage') return false;
  if (a.scope?.includes('openid')) return false;
  if (jkt !== undefined && proofJkt(a) !== jkt) return false;
  const asked = (a.scope ?? []).flatMap((s) => (LEVEL_SCOPES[s] ? [LEVEL_SCOPES[s]] : []));
  return asked.every((l) => roleAtLeast(parentLevel, l));
}

async function send(parent: string, agent: string, a: Ask) {
  const resource = { absent: undefined, same: project.resource, other: other.resource, garbage: 'not a url' }[a.resource];
  const params: Record<string, string> = { subject_token: parent, subject_token_type: ACCESS_TOKEN_TYPE };
  if (a.scope) params['scope'] = a.scope.join(' ');
  if (resource) params['resource'] = resource;
  const proofKey = { none: null, parent: key, stranger: strangerKey }[a.proof];
  return exchangeRaw(f, agent, params, proofKey ? { DPoP: await dpopProof(f, proofKey) } : {});
}

test('a delegated token never exceeds its parent, on any path; within the bounds none is refused', async () => {
  const parentArb = fc.record({
    role: fc.constantFrom<Role>('VIEWER', 'EDITOR', 'ADMIN'),
    grantScope: fc.constantFrom('mcp', 'mcp:read', 'mcp:write', 'mcp:admin'),
    scope: fc.constantFrom('mcp', 'openid', 'mcp:read', 'mcp:write', 'mcp:admin', 'openid mcp:write'),
    ttl: fc.integer({ min: 30, max: 7_200 }),
    bound: fc.boolean(),
  });
  await fc.assert(
    fc.asyncProperty(parentArb, fc.array(ask, { minLength: 1, maxLength: 5 }), async (p, asks) => {
      const person = members[p.role]!;
      const root = await mintAccessToken(f, {
        accountId: person.id,
        resource: project.resource,
        grantScope: p.grantScope,
        scope: p.scope,
        ttl: p.ttl,
        ...(p.bound ? { jkt: key.jkt } : {}),
      });
      let parent = root.token;
      let depth = 0;
      for (const [i, a] of asks.entries()) {
        const before = (await readToken(parent, p.role))!;
        const res = await send(parent, agents[i % agents.length]!, a);
        const expected = allowed(a, before.level, depth, before.at.jkt);
        assert.equal(res.status === 200, expected, `${JSON.stringify({ p, a, depth, level: before.level })}: ${JSON.stringify(res.body)}`);
        if (res.status !== 200) continue;
        assert.equal(res.body['refresh_token'], undefined);
        const child = (await readToken(String(res.body['access_token']), p.role))!;
        assert.ok(roleAtLeast(before.level, child.level), `${child.level} above ${before.level}`);
        assert.equal(child.at.aud, before.at.aud);
        assert.ok(child.at.exp <= before.at.exp, `exp ${child.at.exp} past ${before.at.exp}`);
        assert.equal(child.at.chain?.length, depth + 2);
        assert.deepEqual(child.at.chain?.slice(1), before.at.chain ?? [before.at.clientId]);
        // Bound parent: the same key; bearer parent: the proof's key, if one was sent.
        assert.equal(child.at.jkt, before.at.jkt ?? proofJkt(a));
        parent = String(res.body['access_token']);
        depth += 1;
      }
    }),
    { numRuns: 60 },
  );
});

test('revoking any token of a line ends every token delegated below it, and none above', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.nat(), fc.boolean(), async (length, pick, byGrant) => {
      const root = await mintAccessToken(f, { accountId: project.user.id, resource: project.resource });
      const line = [{ token: root.token, client: 'svc-mcp' }];
      for (let i = 0; i < length; i++) {
        const res = await send(line[i]!.token, agents[i]!, { scope: null, resource: 'absent', proof: 'none' });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        line.push({ token: String(res.body['access_token']), client: agents[i]! });
      }
      const cut = pick % line.length;
      const target = line[cut]!;
      if (byGrant) {
        const stored = await oidcRecords.accessToken(f.client, target.token);
        await f.accounts.oauthGrants.revoke(stored!.payload.kind === 'AccessToken' ? stored!.payload.grantId : '');
      } else await postForm(`${f.url}/api/oauth/revoke`, { token: target.token, client_id: target.client });
      for (const [i, t] of line.entries())
        assert.equal((await introspect(f, t.client, t.token))['active'], i < cut, `token ${i} of ${line.length}, cut at ${cut}`);
    }),
    { numRuns: 25 },
  );
});

test('an exchange racing the revocation of its parent never leaves a live child of a revoked parent', async () => {
  for (let i = 0; i < 40; i++) {
    const parent = await mintAccessToken(f, { accountId: project.user.id, resource: project.resource });
    // The revocation starts a few more turns of the event loop into the exchange each round, so
    // the rounds cover it landing before, during and after the exchange's reads and writes.
    const revokeLater = async () => {
      for (let turn = 0; turn < i * 4; turn++) await new Promise((resolve) => setImmediate(resolve));
      await f.accounts.oauthGrants.revoke(parent.grantId);
    };
    const [res] = await Promise.all([send(parent.token, agents[0]!, { scope: null, resource: 'absent', proof: 'none' }), revokeLater()]);
    if (res.status === 200)
      assert.equal((await introspect(f, agents[0]!, String(res.body['access_token'])))['active'], false, `round ${i}`);
    else assert.equal(res.body['error'], 'invalid_request', JSON.stringify(res.body));
  }
});
