/** The verified-credential cache: targeted invalidation, an LRU bound without a cliff, the TTL backstop. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { INVALIDATES } from '@svc/accounts';
import { testClock } from '@svc/testkit';
import type { ResolvedCaller } from '../src/auth/caller.ts';
import { dependencies, ResolutionCache, type Resolution } from '../src/auth/resolution-cache.ts';

function caller(over: Partial<ResolvedCaller> = {}): Resolution {
  return {
    ok: true,
    caller: {
      type: 'key',
      id: 'key_1',
      label: 'k',
      role: 'VIEWER',
      serviceAccount: false,
      project: 'p1',
      workspace: 'ws1',
      plan: 'FREE',
      payer: { workspace: 'ws1', plan: 'FREE' },
      agents: false,
      grantedProjects: [],
      legacy: false,
      defaultSurface: 'hosted',
      session: 'key_1',
      keyHash: 'h1',
      keyLimit: null,
      expiresAt: null,
      allowedIps: null,
      ...over,
    },
  };
}

const put = (cache: ResolutionCache, key: string, value: Resolution, hash: string, slug = 'p1') =>
  cache.set(key, value, cache.currentGeneration, dependencies(hash, null, { kind: 'project', slug }, value));

test('a revocation drops only the entries that depend on that key', () => {
  const cache = new ResolutionCache(60_000);
  put(cache, 'a', caller({ keyHash: 'ha' }), 'ha');
  put(cache, 'b', caller({ keyHash: 'hb' }), 'hb');
  cache.invalidate(INVALIDATES.key('ha'));
  assert.equal(cache.get('a'), undefined);
  assert.ok(cache.get('b'), 'the other key stays cached');
});

test('user, bot, workspace, project and OAuth grant messages reach the entries that depend on them', () => {
  const cache = new ResolutionCache(60_000);
  put(cache, 'u', caller({ type: 'user', id: 'user_1', keyHash: 'hu' }), 'hu');
  put(cache, 'bot', caller({ type: 'bot', id: 'bot_1', keyHash: 'hbot' }), 'hbot', 'p2');
  put(cache, 'oauth', caller({ type: 'user', id: 'user_2', keyHash: '', session: 'grant_1' }), 'ho', 'p3');
  put(cache, 'payer', caller({ keyHash: 'hp', payer: { workspace: 'personal', plan: 'FREE' } }), 'hp', 'p4');
  cache.invalidate(INVALIDATES.user('user_1'));
  assert.equal(cache.get('u'), undefined);
  cache.invalidate(INVALIDATES.bot('bot_1'));
  assert.equal(cache.get('bot'), undefined);
  cache.invalidate(INVALIDATES.oauthGrant('grant_1'));
  assert.equal(cache.get('oauth'), undefined);
  assert.ok(cache.get('payer'));
  cache.invalidate(INVALIDATES.workspace('personal'));
  assert.equal(cache.get('payer'), undefined, "a plan change of the payer's workspace");
  const unknown: Resolution = { ok: false, error: new Error('x') as never };
  put(cache, 'missing', unknown, 'hm', 'new-project');
  cache.invalidate(INVALIDATES.project('new-project'));
  assert.equal(cache.get('missing'), undefined, 'a project created after a 404 was cached');
});

test('a message of unknown shape, or a reconnect, empties the cache', () => {
  const cache = new ResolutionCache(60_000);
  put(cache, 'a', caller(), 'h1');
  cache.invalidate('anything');
  assert.equal(cache.size, 0);
});

test('a lookup that started before a message naming it does not store its answer; others do', () => {
  const cache = new ResolutionCache(60_000);
  const generation = cache.currentGeneration;
  cache.invalidate(INVALIDATES.key('h1'));
  cache.invalidate(INVALIDATES.user('user_9'));
  cache.set('a', caller(), generation, [INVALIDATES.key('h1')]);
  assert.equal(cache.get('a'), undefined, 'read before the revocation: stale');
  cache.set('b', caller(), generation, [INVALIDATES.key('h2')]);
  assert.ok(cache.get('b'), 'the messages meanwhile named other things');
  const beforeClear = cache.currentGeneration;
  cache.invalidate('anything');
  cache.set('c', caller(), beforeClear, [INVALIDATES.key('h3')]);
  assert.equal(cache.get('c'), undefined, 'an unknown message may have changed anything');
  const longAgo = cache.currentGeneration;
  for (let i = 0; i < 300; i++) cache.invalidate(INVALIDATES.key(`other${i}`));
  cache.set('d', caller(), longAgo, [INVALIDATES.key('h4')]);
  assert.equal(cache.get('d'), undefined, 'more messages than remembered: not stored');
});

test("a project created in a workspace reaches its team endpoint's answers", () => {
  const cache = new ResolutionCache(60_000);
  const team = caller({ project: null, workspace: 'ws1', grantedProjects: ['p1'] });
  cache.set('t', team, cache.currentGeneration, dependencies('ht', null, { kind: 'team', slug: 'ws1' }, team));
  put(cache, 'p', caller({ keyHash: 'hp' }), 'hp');
  cache.invalidate(INVALIDATES.projectsOf('ws1'));
  assert.equal(cache.get('t'), undefined);
  assert.ok(cache.get('p'), 'project endpoints do not list projects');
});

test('bounded without a cliff: the least recently used entry goes, one at a time', () => {
  const cache = new ResolutionCache(60_000, Date.now, 3);
  for (const k of ['a', 'b', 'c']) put(cache, k, caller({ keyHash: k }), k);
  assert.ok(cache.get('a'), 'a is now the most recently used');
  put(cache, 'd', caller({ keyHash: 'd' }), 'd');
  assert.equal(cache.size, 3);
  assert.equal(cache.get('b'), undefined, 'b was the least recently used');
  for (const k of ['a', 'c', 'd']) assert.ok(cache.get(k), k);
  cache.invalidate(INVALIDATES.key('c'));
  assert.equal(cache.size, 2, 'the tag index follows evictions');
  cache.invalidate(INVALIDATES.project('p1'));
  assert.equal(cache.size, 0, 'entries sharing a tag go together');
  for (const k of ['e', 'f', 'g']) put(cache, k, caller({ keyHash: k }), k);
  cache.resize(1);
  assert.equal(cache.size, 1);
  assert.ok(cache.peek('g'), 'resizing keeps the most recently used');
});

test('the TTL is a backstop, and never outlives the credential', () => {
  const clock = testClock({ frozen: true });
  const cache = new ResolutionCache(5_000, clock.now);
  put(cache, 'a', caller(), 'h1');
  put(cache, 'short', caller({ expiresAt: clock.now() + 1_000 }), 'h2');
  clock.advance(1_000);
  assert.equal(cache.get('short'), undefined);
  assert.ok(cache.get('a'));
  clock.advance(4_000);
  assert.equal(cache.get('a'), undefined);
});
