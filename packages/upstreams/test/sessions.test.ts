/**
 * The sessions a gateway keeps with legacy upstreams (client.ts): whatever upstreams are registered,
 * updated to another URL or credential, refreshed, called, removed or refused, it keeps at most one
 * an upstream registered here and UPSTREAM_LIMITS.sessions.kept in all (a smaller bound here), never
 * sends a session to a server or credential it was not opened with, and never keeps a session id
 * longer than its bound (refused as `invalid`). Real servers on loopback speaking 2025-11-25, the
 * real store on a real Redis.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { startRedis, type RedisFixture } from '@svc/testkit';
import { UpstreamClient } from '../src/client.ts';
import { UPSTREAM_LIMITS } from '../src/limits.ts';
import { createUpstreams, UpstreamInputError } from '../src/upstreams.ts';
import { UpstreamFailure } from '../src/answer.ts';

const KEY_HEADER = 'x-upstream-key';
const KEYS = [null, 'key-one', 'key-two'] as const;
const PROJECTS = ['p0', 'p1', 'p2'];
const NAMES = ['notes', 'files', 'mail', 'jira', 'wiki'];
/** The sessions the client may keep here: fewer than the upstreams the runs register. */
const KEPT = 4;

/** A 2025-11-25 server: each `initialize` opens a session whose id is `idLength` long; it checks every id it is sent. */
interface LegacyServer {
  url: string;
  idLength: number;
  /** Each session it opened: the credential it was opened with. */
  opened: Map<string, string>;
  /** What it was sent that it never opened for that credential. */
  wrong: string[];
  longest: number;
  server: Server;
}

async function legacyServer(): Promise<LegacyServer> {
  let n = 0;
  const s = { idLength: 16, opened: new Map<string, string>(), wrong: [] as string[], longest: 0 } as LegacyServer;
  s.server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const message = JSON.parse(text) as { id?: number; method: string };
      const key = String(req.headers[KEY_HEADER] ?? '');
      const sent = req.headers['mcp-session-id'];
      if (typeof sent === 'string') {
        s.longest = Math.max(s.longest, sent.length);
        if (s.opened.get(sent) !== key) {
          s.wrong.push(`${message.method} with ${sent.slice(0, 12)}...`);
          res.writeHead(404).end();
          return;
        }
      }
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      let body: Record<string, unknown> = { error: { code: -32601, message: 'Method not found' } };
      if (message.method === 'initialize') {
        const id = `s${++n}-`.padEnd(s.idLength, 'x');
        s.opened.set(id, key);
        headers['mcp-session-id'] = id;
        body = { result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'legacy', version: '1' } } };
      } else if (message.method === 'tools/list') body = { result: { tools: [{ name: 'read', inputSchema: { type: 'object' } }] } };
      else if (message.method === 'tools/call') body = { result: { content: [{ type: 'text', text: 'done' }] } };
      res.writeHead(200, headers).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...body }));
    });
  });
  s.server.listen(0, '127.0.0.1');
  await once(s.server, 'listening');
  s.url = `http://127.0.0.1:${(s.server.address() as AddressInfo).port}/mcp`;
  return s;
}

let redis: RedisFixture;
let servers: LegacyServer[];
before(async () => {
  redis = await startRedis();
  servers = await Promise.all([legacyServer(), legacyServer(), legacyServer()]);
});
after(async () => {
  for (const s of servers) s.server.close();
  await redis.stop();
});

const where = { project: fc.nat(PROJECTS.length - 1), name: fc.nat(NAMES.length - 1) };
/** A session id's length: short, about its bound, or far past it (16 KiB and less, what a header holds). */
const idLength = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 8, max: 64 }) },
  { weight: 1, arbitrary: fc.integer({ min: UPSTREAM_LIMITS.sessions.idLength - 8, max: UPSTREAM_LIMITS.sessions.idLength + 8 }) },
  { weight: 1, arbitrary: fc.integer({ min: 4_000, max: 15_000 }) },
);
const op = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('add' as const), ...where, server: fc.nat(2), key: fc.nat(2), idLength }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('update' as const), ...where, server: fc.option(fc.nat(2)), key: fc.nat(2), idLength }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), ...where }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('removeAll' as const), project: where.project }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('refresh' as const), ...where, idLength }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('handshake' as const), ...where, idLength }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('call' as const), ...where }) },
);
type Op = typeof op extends fc.Arbitrary<infer O> ? O : never;

test('whatever is added, updated, removed, refused and called, the sessions kept stay within the live upstreams and their bound', async () => {
  let client: UpstreamClient;
  let upstreams: ReturnType<typeof createUpstreams>;
  const reached = { kept: 0, refusedIds: 0 };

  async function live(): Promise<number> {
    let n = 0;
    for (const p of PROJECTS) n += (await upstreams.read(p)).upstreams.length;
    return n;
  }

  async function apply(o: Op): Promise<void> {
    const project = PROJECTS[o.project]!;
    const name = 'name' in o ? NAMES[o.name]! : '';
    const credential = (k: number) => (KEYS[k] ? { header: KEY_HEADER, value: KEYS[k] } : null);
    if ('idLength' in o) for (const s of servers) s.idLength = o.idLength;
    switch (o.kind) {
      case 'add':
        await upstreams.register({
          project,
          workspace: 'w',
          name,
          url: servers[o.server]!.url,
          credential: credential(o.key),
          addedBy: 'ada',
        });
        return;
      case 'update':
        await upstreams.update(project, 'w', name, {
          ...(o.server === null ? {} : { url: servers[o.server]!.url }),
          credential: credential(o.key),
        });
        return;
      case 'remove':
        await upstreams.remove(project, name);
        return;
      case 'removeAll':
        await upstreams.removeAll(project);
        return;
      case 'refresh':
        await upstreams.refresh(project, 'w', name);
        return;
      case 'handshake':
      case 'call': {
        const u = (await upstreams.read(project)).upstreams.find((r) => r.name === name);
        if (!u) return;
        const endpoint = upstreams.endpointOf(u, 'w');
        if (o.kind === 'handshake') await client.handshake(endpoint);
        else await client.callTool(endpoint, 'read', {});
      }
    }
  }

  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 20, size: 'max' }), async (ops) => {
      // Each run a gateway of its own, on an empty Redis, and servers that have seen nothing.
      client = new UpstreamClient({ allowedPrivate: [{ address: '127.0.0.1', prefix: 32, family: 'ipv4' }], sessions: KEPT });
      upstreams = createUpstreams({ redis: redis.client, pepper: 'p'.repeat(32), issuer: 'https://svc.test', allowedPrivate: [], client });
      await redis.flush();
      for (const s of servers) Object.assign(s, { wrong: [], longest: 0 });
      for (const o of ops) {
        try {
          await apply(o);
        } catch (err) {
          // Refusals (a name taken, a project full, no such upstream, a server's answer refused) are outcomes, not failures.
          if (!(err instanceof UpstreamInputError || err instanceof UpstreamFailure)) throw err;
          if (err.message.includes('session id')) reached.refusedIds++;
        }
        const kept = client.sessionsKept;
        reached.kept = Math.max(reached.kept, kept);
        assert.ok(kept <= KEPT, `${kept} sessions kept`);
        const n = await live();
        assert.ok(kept <= n, `${kept} sessions kept for ${n} upstreams`);
        for (const s of servers) {
          assert.deepEqual(s.wrong, [], 'a session sent where it was not opened');
          assert.ok(s.longest <= UPSTREAM_LIMITS.sessions.idLength, `a session id of ${s.longest} characters sent back`);
        }
      }
    }),
    { numRuns: 60 },
  );
  // The runs met the bound and refused long ids, not only stayed clear of them.
  assert.equal(reached.kept, KEPT);
  assert.ok(reached.refusedIds > 0);
});

test("a workspace with sessions past its share drops its own oldest, never another workspace's", async () => {
  const client = new UpstreamClient({
    allowedPrivate: [{ address: '127.0.0.1', prefix: 32, family: 'ipv4' }],
    sessions: 8,
    sessionsPerWorkspace: 3,
  });
  const server = servers[0]!;
  // The property above leaves the servers' id length at whatever its last run drew, past the bound at times.
  server.idLength = 16;
  const endpoint = (tenant: string, project: string) => ({
    project,
    upstream: 'notes',
    url: server.url,
    timeoutMs: 5_000,
    credential: null,
    tenant,
    era: 'legacy' as const,
    token: () => 'token',
  });
  const opened = () => server.opened.size;
  await client.callTool(endpoint('victim', 'v0'), 'read', {});
  for (let i = 0; i < 20; i++) await client.callTool(endpoint('churner', `c${i}`), 'read', {});
  assert.equal(client.sessionsKept, 4, "the churning workspace's share (3) and the victim's one");
  const before = opened();
  await client.callTool(endpoint('victim', 'v0'), 'read', {});
  assert.equal(opened(), before, "the victim's session was kept: no new initialize");
  await client.callTool(endpoint('churner', 'c0'), 'read', {});
  assert.equal(opened(), before + 1, "the churning workspace's oldest was dropped and opened again");
});
