/**
 * The verified-credential cache on a running gateway and a real Redis (docs/redis-schema.md
 * "Invalidation"): a message drops only the entries it names, the bound evicts one entry at a
 * time, and no answer read before a change outlives the change's message.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { waitFor } from '@svc/testkit';
import { cacheKeyOf } from '../src/auth/authenticate.ts';
import { call, post, rpc, seed, startFixture, type GatewayFixture } from './support.ts';

let f: GatewayFixture;
before(async () => {
  // A long lifetime: only the invalidation messages and the bound can drop an entry here; limits
  // out of the way of the racing lookups.
  f = await startFixture({ AUTH_CACHE_TTL_MS: '60000', RATE_LIMIT_SCALE: '1000000' });
});
after(() => f.close());

const cache = () => f.gw.gateway.cache;
/** The cache key of a credential at an endpoint (the gateway's own spelling, authenticate.ts). */
const entry = (key: string, project: string) => cacheKeyOf(key, { kind: 'project', slug: project });
const cached = (key: string, project: string) => cache().peek(entry(key, project)) !== undefined;

async function lookups(): Promise<{ hit: number; miss: number }> {
  const { values } = await f.gw.gateway.metrics.authCache.get();
  const n = (result: string) => values.find((v) => v.labels['result'] === result)?.value ?? 0;
  return { hit: n('hit'), miss: n('miss') };
}

const ping = (key: string, project: string) => post(f.url, `/mcp/${project}`, rpc('ping'), { 'X-API-Key': key });
const roleOf = async (key: string, project: string) =>
  (await post(f.url, `/mcp/${project}`, call('svc_help'), { 'X-API-Key': key })).body.result.structuredContent.role as string;

async function newKeys(project: string, workspace: string, n: number): Promise<string[]> {
  const issued = await Promise.all(
    Array.from({ length: n }, (_, i) => f.accounts.keys.createProjectKey({ project, workspace, level: 'VIEWER', name: `k${i}` })),
  );
  return issued.map((k) => k.key);
}

test("a revocation drops only the revoked key's entry; the others stay cached", async () => {
  const s = await seed(f.accounts);
  const others = await newKeys(s.project, s.workspace, 4);
  for (const key of [s.key, ...others]) assert.equal((await ping(key, s.project)).status, 200);
  assert.ok([s.key, ...others].every((key) => cached(key, s.project)));
  const size = cache().size;

  await f.accounts.keys.revoke(s.keyId);
  await waitFor(() => !cached(s.key, s.project), { timeout: 1000, message: "the revoked key's entry to go" });
  assert.equal(cache().size, size - 1, 'one entry went, no more');

  const before = await lookups();
  for (const key of others) assert.equal((await ping(key, s.project)).status, 200);
  const after = await lookups();
  assert.equal(after.hit - before.hit, others.length, 'the other keys were answered from the cache');
  assert.equal(after.miss, before.miss);
  assert.equal((await ping(s.key, s.project)).status, 401);
});

test("a role change drops that person's entries, a grant the bot's, a plan change the workspace's", async () => {
  const owner = await seed(f.accounts, { plan: 'TEAM' });
  const elsewhere = await seed(f.accounts, { plan: 'TEAM' });
  const second = `${owner.project}-b`;
  await f.accounts.workspaces.createProject({ slug: second, workspace: owner.workspace });
  const member = await f.accounts.users.create({ emailVerified: true, email: `member-${Date.now()}@example.com` });
  const bystander = await f.accounts.users.create({ emailVerified: true, email: `bystander-${Date.now()}@example.com` });
  const memberKey = (await f.accounts.keys.createUserKey({ userId: member.id })).key;
  const bystanderKey = (await f.accounts.keys.createUserKey({ userId: bystander.id })).key;
  const { bot, key: botKey } = await f.accounts.bots.create({ workspace: owner.workspace, name: 'ci' });

  const calls: [string, string][] = [
    [memberKey, owner.project],
    [memberKey, second],
    [bystanderKey, owner.project],
    [botKey.key, owner.project],
    [owner.key, owner.project],
    [elsewhere.key, elsewhere.project],
  ];
  for (const [key, project] of calls)
    assert.equal(await roleOf(key, project), (project === owner.project && key === owner.key) || key === elsewhere.key ? 'EDITOR' : 'NONE');
  const stays = async (pairs: [string, string][]) => {
    const before = await lookups();
    for (const [key, project] of pairs) await ping(key, project);
    assert.equal((await lookups()).hit - before.hit, pairs.length, 'entries the message does not name stay cached');
  };

  await f.accounts.workspaces.setRole(owner.project, member.id, 'EDITOR');
  await waitFor(() => !cached(memberKey, owner.project) && !cached(memberKey, second), {
    timeout: 1000,
    message: "the member's entries to go",
  });
  assert.ok(
    calls.slice(2).every(([key, project]) => cached(key, project)),
    'no one else’s entry went',
  );
  await stays(calls.slice(2));
  assert.equal(await roleOf(memberKey, owner.project), 'EDITOR');
  assert.equal(await roleOf(memberKey, second), 'NONE');

  await f.accounts.bots.grant(bot.id, owner.project, 'VIEWER');
  await waitFor(() => !cached(botKey.key, owner.project), { timeout: 1000, message: "the bot's entry to go" });
  await stays([calls[0]!, calls[2]!, calls[4]!, calls[5]!]);
  assert.equal(await roleOf(botKey.key, owner.project), 'VIEWER');

  await f.accounts.workspaces.setPlan(owner.workspace, 'ENTERPRISE');
  await waitFor(() => calls.slice(0, 5).every(([key, project]) => !cached(key, project)), {
    timeout: 1000,
    message: "the workspace's entries to go",
  });
  await stays([calls[5]!]);
  const res = await post(f.url, `/mcp/${owner.project}`, call('svc_help'), { 'X-API-Key': owner.key });
  assert.equal(res.body.result.structuredContent.plan, 'ENTERPRISE');
});

test('past the bound the least recently used entry goes, one at a time', async () => {
  const s = await seed(f.accounts);
  const keys = await newKeys(s.project, s.workspace, 5);
  cache().resize(3);
  try {
    for (const key of keys.slice(0, 3)) await ping(key, s.project);
    assert.equal(cache().size, 3);
    const before = await lookups();
    await ping(keys[0]!, s.project); // a hit: keys[0] becomes the most recently used
    assert.equal((await lookups()).hit, before.hit + 1);

    await ping(keys[3]!, s.project);
    assert.equal(cache().size, 3);
    assert.deepEqual(
      keys.map((key) => cached(key, s.project)),
      [true, false, true, true, false],
      'keys[1] was the least recently used',
    );
    await ping(keys[4]!, s.project);
    assert.equal(cache().size, 3);
    assert.deepEqual(
      keys.map((key) => cached(key, s.project)),
      [true, false, false, true, true],
      'then keys[2]',
    );
  } finally {
    cache().resize(100_000);
  }
});

/** An answer the gateway read from Redis, with its store into the cache held back until released. */
interface HeldLookup {
  answer: Record<string, unknown>;
  release(): Promise<void>;
}

/**
 * Sends one request whose lookup misses, and holds its store into the cache: the lookup read Redis
 * before what the test changes next, and stores after the change's message arrived (the race a busy
 * gateway meets).
 */
async function heldLookup(key: string, path: string, cacheKey: string): Promise<HeldLookup> {
  const c = cache();
  assert.equal(c.peek(cacheKey), undefined, 'the lookup must miss');
  const set = c.set.bind(c);
  let store: (() => void) | undefined;
  c.set = (k, ...rest) => {
    if (k === cacheKey) store = () => set(k, ...rest);
    else set(k, ...rest);
  };
  try {
    const res = await post(f.url, path, call('svc_help'), { 'X-API-Key': key });
    assert.ok(store, 'the lookup reached the cache');
    const answer = res.status === 200 ? res.body.result.structuredContent : { status: res.status };
    return { answer, release: async () => store?.() };
  } finally {
    Reflect.deleteProperty(c, 'set');
  }
}

/** Runs `change` and waits until the gateway has heard its `messages` invalidation messages. */
async function changeHeard(change: () => Promise<unknown>, messages = 1): Promise<void> {
  const generation = cache().currentGeneration;
  await change();
  await waitFor(() => cache().currentGeneration >= generation + messages, {
    timeout: 1000,
    message: "the change's invalidation message to reach the gateway",
  });
}

test("an answer read before a change never outlives the change's message", async () => {
  const s = await seed(f.accounts, { plan: 'FREE' });
  const projectPath = `/mcp/${s.project}`;
  const help = async (key: string, path = projectPath): Promise<Record<string, unknown>> => {
    const res = await post(f.url, path, call('svc_help'), { 'X-API-Key': key });
    return res.status === 200 ? res.body.result.structuredContent : { status: res.status };
  };
  const member = await f.accounts.users.create({ emailVerified: true, email: `racer-${Date.now()}@example.com` });
  const memberKey = (await f.accounts.keys.createUserKey({ userId: member.id })).key;
  const { bot, key: botKey } = await f.accounts.bots.create({ workspace: s.workspace, name: 'racer' });
  const [planKey, levelKey, revokedKey, bystander] = await newKeys(s.project, s.workspace, 4);
  const idOf = async (key: string) => (await f.accounts.keys.findByHash(f.accounts.keys.hash(key)))!.id;
  const late = `${s.project}-late`;
  const lateKey = (await f.accounts.keys.createProjectKey({ project: late, workspace: s.workspace, level: 'VIEWER', name: 'early' })).key;
  const team = await f.accounts.keys.issue({ kind: 'legacy_team_key', name: 'old team', workspace: s.workspace });

  const cases: {
    what: string;
    key: string;
    path?: string;
    target?: { kind: 'project' | 'team'; slug: string };
    change: () => Promise<unknown>;
    messages?: number;
    isNew: (answer: Record<string, unknown>) => boolean;
  }[] = [
    {
      what: 'a role change',
      key: memberKey,
      change: () => f.accounts.workspaces.setRole(s.project, member.id, 'VIEWER'),
      isNew: (a) => a['role'] === 'VIEWER',
    },
    {
      what: "a service account's grant",
      key: botKey.key,
      change: () => f.accounts.bots.grant(bot.id, s.project, 'EDITOR'),
      isNew: (a) => a['role'] === 'EDITOR',
    },
    {
      what: 'a plan change',
      key: planKey!,
      change: () => f.accounts.workspaces.setPlan(s.workspace, 'TEAM'),
      isNew: (a) => a['plan'] === 'TEAM',
    },
    {
      what: "a key's new level",
      key: levelKey!,
      change: async () => f.accounts.keys.setLevel(await idOf(levelKey!), 'ADMIN'),
      isNew: (a) => a['role'] === 'ADMIN',
    },
    {
      what: 'a revocation',
      key: revokedKey!,
      change: async () => f.accounts.keys.revoke(await idOf(revokedKey!)),
      isNew: (a) => a['status'] === 401,
    },
    {
      what: 'a project created after its key was refused there',
      key: lateKey,
      path: `/mcp/${late}`,
      target: { kind: 'project', slug: late },
      change: () => f.accounts.workspaces.createProject({ slug: late, workspace: s.workspace }),
      messages: 2,
      isNew: (a) => a['role'] === 'VIEWER',
    },
    {
      // A team endpoint's answer lists the workspace's projects (a legacy team key is granted all).
      what: "a project created in a team's workspace",
      key: team.key,
      path: `/mcp/team/${s.workspace}`,
      target: { kind: 'team', slug: s.workspace },
      change: () => f.accounts.workspaces.createProject({ slug: `${s.project}-new`, workspace: s.workspace }),
      messages: 2,
      isNew: () => {
        const r = cache().peek(cacheKeyOf(team.key, { kind: 'team', slug: s.workspace }));
        return r?.ok === true && r.caller.grantedProjects.includes(`${s.project}-new`);
      },
    },
  ];
  for (const c of cases) {
    const path = c.path ?? projectPath;
    const cacheKey = cacheKeyOf(c.key, c.target ?? { kind: 'project', slug: s.project });
    const held = await heldLookup(c.key, path, cacheKey);
    assert.ok(!c.isNew(held.answer), `${c.what}: the held lookup read the state before the change`);
    await changeHeard(c.change, c.messages);
    await held.release();
    assert.equal(cache().peek(cacheKey), undefined, `${c.what}: the answer read before it was not stored`);
    await help(c.key, path);
    assert.ok(cache().peek(cacheKey), `${c.what}: the next lookup is stored`);
    const answer = await help(c.key, path);
    assert.ok(c.isNew(answer), `${c.what}: the new state applies (${JSON.stringify(answer)})`);
  }

  // A message naming something else does not stop an unrelated lookup from being stored.
  const cacheKey = entry(bystander!, s.project);
  const held = await heldLookup(bystander!, projectPath, cacheKey);
  const [other] = await newKeys(s.project, s.workspace, 1);
  await changeHeard(async () => f.accounts.keys.revoke(await idOf(other!)));
  await held.release();
  assert.ok(cache().peek(cacheKey), 'an unrelated revocation leaves the lookup stored');
});
