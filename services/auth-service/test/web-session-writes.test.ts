/**
 * Browser sessions' writes (docs/auth-service.md "Sessions"): each key's read-modify-write is one
 * Redis step (MULTI/EXEC on that key), so no reader ever sees a session without its expiry and
 * ending a session removes from the index exactly what was deleted; concurrent sign-ins and
 * sign-outs of one person lose nothing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Request, Response } from 'express';
import { connectRedis, type Redis } from '@svc/accounts';
import { startRedis, type RedisFixture } from '@svc/testkit';
import { createWebSessions, type WebSessions } from '../src/http/web-session.ts';

let redis: RedisFixture;
let client: Redis;
let web: WebSessions;

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url, { name: 'web-session-test' });
  web = createWebSessions({ redis: client, secure: false, keys: ['k'.repeat(32)] });
});
after(async () => {
  client.disconnect();
  await redis.stop();
});

/** A browser: its cookie jar as a request, and a response that fills the jar. */
function browser(agent = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0') {
  const jar = new Map<string, string>();
  const req = () => ({ headers: { 'user-agent': agent, cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } }) as unknown as Request;
  const res = {
    cookie: (name: string, value: string) => void jar.set(name, value),
    clearCookie: (name: string) => void jar.delete(name),
  } as unknown as Response;
  return { req, res };
}

/** The commands Redis ran while `work` did, as MONITOR reports them (lower-case names and keys). */
async function commandsDuring(work: () => Promise<unknown>): Promise<string[][]> {
  const watcher = client.duplicate();
  const monitor = await watcher.monitor();
  const seen: string[][] = [];
  monitor.on('monitor', (_time: string, args: string[]) => seen.push(args.map((a, i) => (i === 0 ? a.toLowerCase() : a))));
  try {
    await work();
    await client.ping('end-of-work');
    await new Promise<void>((resolve) => {
      const check = () => (seen.some((c) => c[0] === 'ping' && c[1] === 'end-of-work') ? resolve() : setImmediate(check));
      check();
    });
  } finally {
    // Whatever `work` threw, no connection outlives the test: one left reconnecting to the stopped
    // Redis would hold the file's process open.
    monitor.disconnect();
    watcher.disconnect();
  }
  return seen.filter((c) => c[0] !== 'ping' && c[0] !== 'client' && c[0] !== 'info');
}

test('a sign-in writes the session with its expiry in one step, then the index in one step', async () => {
  const b = browser();
  const commands = await commandsDuring(() => web.start(b.req(), b.res, 'user-1'));
  assert.deepEqual(
    commands.map((c) => c[0]),
    ['multi', 'hset', 'expire', 'exec', 'multi', 'sadd', 'expire', 'exec'],
  );
  const [session] = await web.list(b.req(), 'user-1');
  assert.ok(session?.current);
});

test('a sign-out reads and deletes the session in one step, then drops exactly that one from the index', async () => {
  const b = browser();
  await web.start(b.req(), b.res, 'user-2');
  let held: Record<string, string> | null = null;
  const commands = await commandsDuring(async () => {
    held = await web.end(b.req(), b.res);
  });
  assert.deepEqual(
    commands.map((c) => c[0]),
    ['multi', 'hgetall', 'del', 'exec', 'srem'],
  );
  // What the session held comes back: a sign-out reads its single sign-on workspace from it (pages/sign-out.ts).
  assert.equal((held as Record<string, string> | null)?.['userId'], 'user-2');
  assert.deepEqual(await web.list(b.req(), 'user-2'), []);
});

test('concurrent sign-ins and sign-outs of one person lose nothing: every live session listed, every ended one gone', async () => {
  const staying = Array.from({ length: 6 }, (_, i) => browser(`agent-${i}`));
  const leaving = Array.from({ length: 6 }, (_, i) => browser(`leaving-${i}`));
  await Promise.all(leaving.map((b) => web.start(b.req(), b.res, 'user-3')));
  // Each leaving browser signs out twice at once while the others sign in.
  await Promise.all([
    ...staying.map((b) => web.start(b.req(), b.res, 'user-3')),
    ...leaving.flatMap((b) => {
      const req = b.req();
      return [web.end(req, b.res), web.end(req, b.res)];
    }),
  ]);
  const listed = await web.list(staying[0]!.req(), 'user-3');
  assert.deepEqual(listed.map((s) => s.agent).sort(), staying.map((_, i) => `agent-${i}`).sort());
  assert.equal(await client.scard('svc:oidc:user-web-sessions:user-3'), staying.length, 'the index holds no ended session');
  for (const key of await client.keys('svc:oidc:web-session:*')) assert.ok((await client.ttl(key)) > 0, `${key} has its expiry`);
});
