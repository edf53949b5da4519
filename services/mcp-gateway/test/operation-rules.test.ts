/**
 * The rules each management operation declares (docs/security.md "Rules on the operation"),
 * proven from the declarations themselves, so an operation is covered the day it is declared:
 * - REST, with a personal key: every operation whose policy says `stepUp: 'always'` is refused
 *   `step_up_required` to a person with a second factor, whatever the body; every operation that
 *   needs a confirmed address is refused to an unconfirmed person;
 * - the management layer, as the dashboard and svc-admin call it: every operation's method (named by
 *   its id, its path parameters first: packages/management/src/rules.ts) and every internal call
 *   that performs an operation (VARIANTS) is refused without a recent factor and let through with one;
 * - the takeover clean-up: every kind of workspace-level setting the operations declare is made,
 *   and none survives (a kind declared later fails to compile here until the test makes it).
 */
import assert from 'node:assert/strict';
import { DENIAL_META_KEY } from '@svc/errors';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { PublicJwk, User } from '@svc/accounts';
import { createManagement, StepUpRequired, VARIANTS, type Actor, type Management } from '@svc/management';
import {
  MANAGEMENT_OPERATIONS,
  pathParamNames,
  WORKSPACE_SETTINGS,
  type OperationDeclaration,
  type OperationId,
  type Refusal,
  type WorkspaceSetting,
} from '@svc/management/contract';
import { createScimDirectory, createScimTokens, createSsoStore, ssoSettings } from '@svc/sso';
import { sampleOf } from '@svc/testkit';
import { createUpstreams, type Upstreams } from '@svc/upstreams';
import { WebhookStore } from '@svc/webhooks';
import { plantAccessToken, seed, startFixture, type GatewayFixture, type Seeded } from './support.ts';

let f: GatewayFixture;
let management: Management;
let upstreams: Upstreams;
const COOKIE_KEYS = ['a-cookie-key-of-at-least-thirty-two-characters'];

before(async () => {
  f = await startFixture();
  upstreams = createUpstreams({ redis: f.redis.client, pepper: f.config.keyPepper, issuer: f.url, allowedPrivate: [] });
  management = createManagement(f.accounts, {
    upstreams,
    redis: f.redis.client,
    sso: ssoSettings({
      accounts: f.accounts,
      store: createSsoStore(f.redis.client, COOKIE_KEYS),
      resolveTxt: async () => [],
      now: Date.now,
    }),
    webhooks: new WebhookStore(f.redis.client, { pepper: f.config.keyPepper }),
    scim: { tokens: scimTokens(), directory: createScimDirectory(f.redis.client) },
  });
});
const scimTokens = () => createScimTokens(f.redis.client, f.config.keyPepper);
after(() => f.close());

const OPERATIONS = Object.entries(MANAGEMENT_OPERATIONS) as [OperationId, (typeof MANAGEMENT_OPERATIONS)[OperationId]][];
const needing = (rule: 'stepUp' | 'confirmed') =>
  OPERATIONS.filter(([, op]) => (rule === 'stepUp' ? op.policy.stepUp === 'always' : op.policy.confirmed));

/** Calls operation `id` over REST with `credential` (a key, or `Bearer <token>`), every path parameter naming the caller's own project or workspace. */
async function callRest(id: OperationId, credential: string, who: Seeded) {
  const op: OperationDeclaration = MANAGEMENT_OPERATIONS[id];
  const params: Record<string, string> = {
    project: who.project,
    workspace: who.workspace,
    id: 'none',
    user: 'none',
    domain: 'example.com',
  };
  const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? 'none'));
  const body = op.body ? sampleOf(op.body) : undefined;
  const res = await fetch(f.url + path, {
    method: op.method,
    headers: {
      'content-type': 'application/json',
      ...(credential.startsWith('Bearer ') ? { authorization: credential } : { 'x-api-key': credential }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Partial<Refusal> };
}

/** A person whose authenticator app is enrolled, and their personal key. */
async function withFactor(): Promise<{ who: Seeded; key: string }> {
  const who = await seed(f.accounts, { plan: 'TEAM' });
  await f.accounts.factors.beginTotp(who.userId, 'JBSWY3DPEHPK3PXP');
  assert.ok(Array.isArray(await f.accounts.factors.confirmTotp(who.userId, 1)));
  return { who, key: (await f.accounts.keys.createUserKey({ userId: who.userId })).key };
}

test('REST: every operation declared stepUp always is refused step_up_required to a person with a factor, naming a dashboard page', async () => {
  assert.ok(needing('stepUp').length >= 20, 'the declarations name the operations that need a step-up');
  for (const [id] of needing('stepUp')) {
    // A workspace per few calls: the management bucket is the workspace's (120 a minute).
    const { who, key } = await withFactor();
    const r = await callRest(id, key, who);
    assert.equal(r.status, 403, `${id}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error?.code, 'step_up_required', id);
    assert.match(r.body.error?.page ?? '', /^\/dashboard(\/|$)/, id);
    // The structured denial names the same page, absolute on the auth host (docs/errors.md "Structured denials").
    assert.deepEqual(r.body.error?._meta?.[DENIAL_META_KEY], {
      reason: 'insufficient_authorization',
      remediation: 'available',
      remediationHints: [{ type: 'url', url: new URL(r.body.error?.page ?? '', f.config.authUrl).href }],
    });
  }
});

test('REST with an OAuth token approved at ADMIN: every project operation declared stepUp always is refused step_up_required', async () => {
  const onProject = needing('stepUp').filter(([, op]) => op.path.startsWith('/api/v1/projects/{project}/'));
  assert.ok(onProject.length >= 5);
  for (const [id] of onProject) {
    const { who } = await withFactor();
    const token = await plantAccessToken(f, { accountId: who.userId, scope: 'mcp:admin', grantScope: 'mcp:admin', project: who.project });
    const r = await callRest(id, `Bearer ${token}`, who);
    assert.equal(r.status, 403, `${id}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error?.code, 'step_up_required', id);
  }
});

test('REST: every operation declared confirmed is refused to a person whose address is not confirmed', async () => {
  const user = await f.accounts.users.create({ email: `unconfirmed-${Date.now()}@example.com`, password: 'a long enough passphrase' });
  const project = `unc-${Math.random().toString(36).slice(2, 8)}`;
  await f.accounts.workspaces.createProject({ slug: project, workspace: user.workspace });
  const who: Seeded = { userId: user.id, email: user.email, workspace: user.workspace, project, key: '', keyId: '' };
  const key = (await f.accounts.keys.createUserKey({ userId: user.id })).key;
  assert.ok(needing('confirmed').length >= 8);
  for (const [id, op] of needing('confirmed')) {
    const r = await callRest(id, key, who);
    assert.equal(r.status, 403, `${id}: ${JSON.stringify(r.body)}`);
    assert.equal(
      r.body.error?.message,
      `Confirm your email address before you ${op.summary}: open the link we mailed you, or send a new one from your account page.`,
    );
  }
});

/** The arguments of a call of `op`: the actor, its path parameters in the order its path names them, an input. */
function argsOf(op: OperationId, actor: Actor): unknown[] {
  const params = pathParamNames(MANAGEMENT_OPERATIONS[op].path).map((name) =>
    name === 'project' || name === 'workspace' ? 'nowhere' : 'none',
  );
  return [actor, ...params, {}];
}

test('the management layer (the dashboard, svc-admin): every operation’s method, and each internal call performing one, applies its step-up, with or without a recent factor', async () => {
  const { who } = await withFactor();
  const person = { kind: 'person', userId: who.userId, label: who.email, source: 'test', requestId: 'test' } as const;
  const calls: [string, OperationId][] = [...OPERATIONS.map(([id]) => [id, id] as [string, OperationId]), ...Object.entries(VARIANTS)];
  for (const [method, op] of calls) {
    for (const stale of [true, false]) {
      const actor: Actor = stale ? person : { ...person, factorAt: Date.now() };
      const run = (management as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!;
      const err = await run(...argsOf(op, actor)).then(
        () => null,
        (e: unknown) => e,
      );
      const stepUp = MANAGEMENT_OPERATIONS[op].policy.stepUp === 'always';
      assert.equal(
        err instanceof StepUpRequired,
        stale && stepUp,
        `${method} as ${op}, ${stale ? 'no' : 'a'} recent factor: ${String(err)}`,
      );
    }
  }
});

test('the management layer: every operation declared stepUp always or making a setting is refused to a delegated token, even with a recent factor', async () => {
  const { who } = await withFactor();
  const person = { kind: 'person', userId: who.userId, label: who.email, source: 'test', requestId: 'test', factorAt: Date.now() } as const;
  const calls: [string, OperationId][] = [...OPERATIONS.map(([id]) => [id, id] as [string, OperationId]), ...Object.entries(VARIANTS)];
  let refused = 0;
  for (const [method, op] of calls) {
    for (const chain of [undefined, ['sub-agent', 'registered-client']]) {
      const actor: Actor = chain ? { ...person, chain } : person;
      const run = (management as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!;
      const err = await run(...argsOf(op, actor)).then(
        () => null,
        (e: unknown) => e,
      );
      const { policy } = MANAGEMENT_OPERATIONS[op];
      const outlives = policy.stepUp === 'always' || 'setting' in policy;
      const byDelegation = err instanceof Error && /^A delegated token cannot /.test(err.message);
      assert.equal(
        byDelegation,
        outlives && chain !== undefined,
        `${method} as ${op}, ${chain ? 'delegated' : 'not delegated'}: ${String(err)}`,
      );
      if (byDelegation) refused++;
    }
  }
  assert.ok(refused >= 20, `${refused} calls refused`);
});

/** Makes one setting of each kind in the workspace, as an owner would have before its address was proven. */
const MAKERS: Record<WorkspaceSetting, (user: User, project: string) => Promise<unknown>> = {
  sso: async (user) => {
    const store = createSsoStore(f.redis.client, COOKIE_KEYS);
    await store.saveProvider(user.workspace, { issuer: 'https://idp.squatter.example', clientId: 'c', secret: 's' }, Date.now());
    await store.putClaim(user.workspace, { domain: 'victim.example', token: 't', verifiedAt: Date.now() });
    await store.takeDomain(user.workspace, 'victim.example');
  },
  webhook: (user) =>
    new WebhookStore(f.redis.client, { pepper: f.config.keyPepper }).create(user.workspace, {
      url: 'https://collector.squatter.example/events',
      events: ['member.added'],
    }),
  'trusted-issuer': (user) =>
    f.accounts.trustedIssuers.add(user.workspace, 'https://issuer.squatter.example', {
      jwks: {
        keys: [{ ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid: 'k' } as PublicJwk],
      },
    }),
  'workload-issuer': async (user) => {
    const { bot } = await f.accounts.bots.create({ workspace: user.workspace, name: 'squatter-ci' });
    await f.accounts.workloadIssuers.add(user.workspace, {
      kind: 'github-actions',
      rules: [{ serviceAccount: bot.id, claims: { repository: 'squatter/repo' } }],
    });
  },
  'client-keys': async (user) => {
    const { bot } = await f.accounts.bots.create({ workspace: user.workspace, name: 'squatter-bot' });
    await f.accounts.serviceAccountClients.setKeys(bot.id, { jwksUri: 'https://keys.squatter.example/jwks.json' });
  },
  scim: async (user) => {
    await scimTokens().create(user.workspace, Date.now());
    await createScimDirectory(f.redis.client).groups.save(
      user.workspace,
      'g1',
      { id: 'g1', displayName: 'admins', externalId: null, members: [], created: 0, lastModified: 0 },
      null,
    );
  },
  invitation: (user, project) =>
    f.accounts.invitations.create({ project, email: 'accomplice@squatter.example', role: 'ADMIN', invitedBy: user.email }),
  upstream: (user, project) =>
    upstreams.store.add(
      {
        name: 'collector',
        project,
        url: 'https://mcp.squatter.example/mcp',
        timeoutMs: 10_000,
        credential: null,
        era: 'legacy',
        protocolVersion: '2025-11-25',
        addedAt: Date.now(),
        addedBy: user.email,
        refreshedAt: Date.now(),
        problem: null,
      },
      [],
    ),
};

test('a takeover leaves no workspace-level setting of the unproven account, of any declared kind, nor its credentials', async () => {
  const squatter = await f.accounts.users.create({ email: `victim-${Date.now()}@example.com`, password: 'a long enough passphrase' });
  const project = `sq-${Math.random().toString(36).slice(2, 8)}`;
  await f.accounts.workspaces.createProject({ slug: project, workspace: squatter.workspace });
  for (const kind of WORKSPACE_SETTINGS) await MAKERS[kind](squatter, project);
  await f.accounts.keys.createProjectKey({ project, workspace: squatter.workspace, level: 'ADMIN', name: 'squatter' });

  const report = await management.clearTakenOver(squatter);
  for (const kind of WORKSPACE_SETTINGS) assert.ok(report[kind] >= 1, `${kind} removed: ${JSON.stringify(report)}`);
  assert.ok(report.credentials >= 2, 'the key and the service account');

  const sso = createSsoStore(f.redis.client, COOKIE_KEYS);
  assert.equal(await sso.settings(squatter.workspace), null);
  assert.equal(await sso.ownerOf('victim.example'), null);
  assert.deepEqual(await new WebhookStore(f.redis.client, { pepper: f.config.keyPepper }).list(squatter.workspace), []);
  assert.deepEqual(await f.accounts.trustedIssuers.list(squatter.workspace), []);
  assert.deepEqual(await f.accounts.workloadIssuers.list(squatter.workspace), []);
  for (const bot of await f.accounts.bots.listForWorkspace(squatter.workspace)) {
    assert.equal(await f.accounts.serviceAccountClients.getKeys(bot.id), null);
    assert.ok(bot.revoked);
  }
  assert.deepEqual(await f.accounts.invitations.list(project), []);
  assert.deepEqual((await upstreams.read(project)).upstreams, []);
  assert.deepEqual(await scimTokens().list(squatter.workspace), []);
  assert.deepEqual(await createScimDirectory(f.redis.client).groups.list(squatter.workspace), []);
  assert.ok((await f.accounts.keys.listForProject(project)).every((k) => k.revoked));
  // A second clean-up finds nothing left.
  const again = await management.clearTakenOver(squatter);
  assert.deepEqual(
    Object.values(again),
    Object.values(again).map(() => 0),
  );
});
