/**
 * Shared pools, per-tenant shares (docs/security.md): the guarded client's name lookups and
 * connections against a local name server that never answers some names, and a local HTTP server.
 * A tenant whose name server never answers (or whose receiver never answers) holds only its own
 * share: every other tenant's lookups and fetches complete, and sign-in's lane is never held by
 * deliveries. The blocked tenant's lookups fail after the time limit, which frees their places
 * though the name server never answered. A name that does not resolve, one at a private address
 * and one that never answers are told alike to the tenant. Counted, never timed.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CimdFetchRefused, createCimdFetch, isSpecialUseAddress } from '../src/guarded-fetch.ts';
import { LookupBusy, LookupFailed } from '../src/name-lookups.ts';
import { OUTBOUND_BOUNDS } from '../src/outbound-bounds.ts';
import { createOutboundPools } from '../src/outbound-pools.ts';
import { startLocalDns, type LocalDns } from './local-dns.ts';

/** Short, so the test is quick; the shares are the declared ones unless a test says otherwise. */
const TIMEOUT_MS = 300;
const PUBLIC = '93.184.215.14';
const TENANTS = 12;

let dns: LocalDns;
let dir: string;
let hostsFile: string;
let port = 0;
const held: ServerResponse[] = [];
let heldChanged: () => void = () => undefined;
const http = createServer((req, res) => {
  req.resume();
  if (req.url === '/hang') {
    held.push(res);
    heldChanged();
  } else res.end('ok');
});

before(async () => {
  const names: Record<string, string[]> = { 'ok.test': [PUBLIC, '2606:4700::1111'], 'internal.test': ['10.0.0.7'] };
  for (let i = 0; i < TENANTS * 3; i++) names[`w${i}.test`] = [PUBLIC];
  dns = await startLocalDns(names);
  dir = await mkdtemp(join(tmpdir(), 'svc-hosts-'));
  hostsFile = join(dir, 'hosts');
  await writeFile(hostsFile, '# as /etc/hosts\n127.0.0.1 docs.test  # a local receiver\n10.9.9.9 intranet.test\n');
  await new Promise<void>((ok) => http.listen(0, '127.0.0.1', ok));
  port = (http.address() as AddressInfo).port;
});
after(async () => {
  for (const res of held.splice(0)) res.end();
  http.closeAllConnections();
  await new Promise((ok) => http.close(ok));
  await dns.close();
  await rm(dir, { recursive: true, force: true });
});

const pools = (shares?: { perTenant: number; waitingPerTenant: number; perLane: number }) =>
  createOutboundPools({ servers: [dns.server], hostsFile, timeoutMs: TIMEOUT_MS, ...(shares ? { shares } : {}) });

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (err: unknown) => (err instanceof LookupBusy ? 'busy' : err instanceof LookupFailed ? 'failed' : String(err)),
  );

test("a tenant whose name server never answers holds only its share: every other tenant's lookups complete, its own fail after the time limit and free their places", async () => {
  const p = pools();
  const { perTenant, waitingPerTenant } = OUTBOUND_BOUNDS.lookups;
  const blocked = Array.from({ length: perTenant + waitingPerTenant + 3 }, (_, i) =>
    outcome(p.lookups.lookup(`n${i}.never.test`, 'deliveries', 'acme')),
  );
  assert.equal(p.lookups.inFlight('deliveries', 'acme'), perTenant);
  // Every other tenant, three lookups each, all at once: none waits behind acme.
  const others = Array.from({ length: TENANTS * 3 }, (_, i) => p.lookups.lookup(`w${i}.test`, 'deliveries', `ws${i % TENANTS}`));
  // Sign-in for acme itself is not held by acme's deliveries.
  const signIn = p.lookups.lookup('ok.test', 'sign-in', 'acme');
  for (const addresses of await Promise.all(others)) assert.deepEqual(addresses, [{ address: PUBLIC, family: 4 }]);
  assert.equal((await signIn)[0]?.address, PUBLIC);

  const results = await Promise.all(blocked);
  assert.equal(results.filter((r) => r === 'busy').length, 3, 'past its waiting bound: refused at once');
  assert.equal(results.filter((r) => r === 'failed').length, perTenant + waitingPerTenant, 'the rest ran out of time');
  assert.ok([...dns.asked.keys()].filter((n) => n.endsWith('.never.test')).length >= perTenant, 'the queries reached the name server');
  assert.equal(p.lookups.inFlight('deliveries'), 0, 'the time limit freed every place, though the name server never answered');
  assert.deepEqual(await p.lookups.lookup('internal.test', 'deliveries', 'acme'), [{ address: '10.0.0.7', family: 4 }]);
});

test('with the deliveries lane full, a new delivery lookup is refused at once and sign-in lookups still complete', async () => {
  const p = pools({ perTenant: 2, waitingPerTenant: 0, perLane: 6 });
  const hogs = ['a', 'b', 'c'].flatMap((t) => [0, 1].map((i) => outcome(p.lookups.lookup(`${t}${i}.never.test`, 'deliveries', t))));
  assert.equal(p.lookups.inFlight('deliveries'), 6);
  assert.equal(await outcome(p.lookups.lookup('ok.test', 'deliveries', 'd')), 'busy');
  assert.equal((await p.lookups.lookup('w0.test', 'sign-in', 'd'))[0]?.address, PUBLIC);
  assert.equal((await p.lookups.lookup('w1.test', 'sign-in', 'a'))[0]?.address, PUBLIC);
  assert.deepEqual(await Promise.all(hogs), Array(6).fill('failed'));
  assert.equal(p.lookups.inFlight('deliveries'), 0);
});

test('a name that does not resolve, one at a private address and one whose name server never answers are told alike to the tenant', async () => {
  const fetch = createCimdFetch({ lane: 'deliveries', pools: pools(), anyStatus: true });
  const refusals: CimdFetchRefused[] = [];
  for (const host of ['nosuch.test', 'internal.test', 'x.never.test', 'intranet.test']) {
    await assert.rejects(fetch(`http://${host}:${port}/`, { method: 'POST', body: '{}', tenant: 'acme' }), (err: unknown) => {
      assert.ok(err instanceof CimdFetchRefused, `${host}: ${String(err)}`);
      refusals.push(err);
      return true;
    });
  }
  assert.deepEqual(
    new Set(refusals.map((r) => `${r.reason}: ${r.tenantMessage}`)),
    new Set(['address: refused: the host does not resolve to a public address']),
  );
  // The detail, for the operator's log only, says which it was.
  assert.match(refusals[0]!.message, /ENOTFOUND/);
  assert.match(refusals[1]!.message, /10\.0\.0\.7/);
  assert.match(refusals[2]!.message, /no answer within/);
});

test('the hosts file is read first, as getaddrinfo reads it: its names are answered without a query, localhost is loopback', async () => {
  const p = pools();
  assert.deepEqual(await p.lookups.lookup('DOCS.test.', 'sign-in', 't'), [{ address: '127.0.0.1', family: 4 }]);
  assert.deepEqual(await p.lookups.lookup('intranet.test', 'sign-in', 't'), [{ address: '10.9.9.9', family: 4 }]);
  assert.equal((await p.lookups.lookup('svc.localhost', 'sign-in', 't'))[0]?.address, '127.0.0.1');
  assert.equal(dns.asked.get('docs.test') ?? 0, 0);
  assert.equal(dns.asked.get('svc.localhost') ?? 0, 0);
  const local = createCimdFetch({ pools: p, refuse: (a) => a !== '127.0.0.1' && isSpecialUseAddress(a) });
  assert.equal(await (await local(`http://docs.test:${port}/ok`)).text(), 'ok', 'the socket connects to the address the hosts file gave');
});

test("a tenant whose receiver never answers holds only its share of connections: another tenant's fetch completes, its own wait or are refused", async () => {
  const p = createOutboundPools({ servers: [dns.server], hostsFile, connections: { perTenant: 2, waitingPerTenant: 1, perLane: 8 } });
  const fetch = createCimdFetch({ lane: 'deliveries', pools: p, refuse: (a) => a !== '127.0.0.1' && isSpecialUseAddress(a) });
  const twoHeld = new Promise<void>((ok) => (heldChanged = () => held.length === 2 && ok()));
  const hanging = [0, 1].map(() => fetch(`http://127.0.0.1:${port}/hang`, { tenant: 'acme' }));
  await twoHeld;
  const waiting = fetch(`http://127.0.0.1:${port}/ok`, { tenant: 'acme' });
  await assert.rejects(fetch(`http://127.0.0.1:${port}/ok`, { tenant: 'acme' }), (err: unknown) => {
    assert.ok(err instanceof CimdFetchRefused && err.reason === 'busy', String(err));
    assert.equal(err.tenantMessage, 'refused for now: too many requests in flight for this workspace');
    return true;
  });
  assert.equal(await (await fetch(`http://127.0.0.1:${port}/ok`, { tenant: 'globex' })).text(), 'ok');
  assert.equal(await (await fetch(`http://127.0.0.1:${port}/ok`)).text(), 'ok', 'sign-in has its own lane');
  assert.equal(p.connections.deliveries.held('acme'), 2);
  for (const res of held.splice(0)) res.end('late');
  assert.deepEqual(await Promise.all(hanging.map(async (r) => (await r).status)), [200, 200]);
  assert.equal(await (await waiting).text(), 'ok', 'the waiting fetch went out once a place was free');
  assert.equal(p.connections.deliveries.held(), 0);
});
