/**
 * Client ID Metadata Document fetches cannot be turned against svc's own network
 * (docs/auth-service.md "Client ID Metadata Documents"): hostile client_id URLs (loopback,
 * private, link-local, IPv4-mapped IPv6, decimal/octal/hex IPv4, names resolving to loopback) open
 * no connection, whatever CIMD_ALLOWED_HOSTS says; the address checked is the one connected to;
 * fetches are throttled per source and per host; time, size and redirects are bounded, against
 * real local servers.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createThrottle } from '../src/http/throttle.ts';
import {
  CIMD_FETCH_TIMEOUT_MS,
  CIMD_MAX_DOCUMENT_BYTES,
  CimdFetchRefused,
  createCimdFetch,
  isSpecialUseAddress,
} from '@svc/bounds/guarded-fetch.ts';
import { CIMD_FETCH_LIMITS, cimdAllowFetch } from '../src/oauth/cimd-throttle.ts';
import { startAuth, type AuthFixture } from './support.ts';

let f: AuthFixture;
/** A listener on loopback that records every connection made to it: none may come. */
const trap = createTcpServer((socket) => {
  trapped.push(socket.remoteAddress ?? '?');
  socket.destroy();
});
const trapped: string[] = [];
let port = 0;

before(async () => {
  f = await startAuth({ env: { CIMD_ALLOWED_HOSTS: '*' } });
  await new Promise<void>((ok) => trap.listen(0, '::', ok)); // dual stack: 127.0.0.1 and ::1 alike
  port = (trap.address() as AddressInfo).port;
});
after(async () => {
  trap.close();
  await f.close();
});

/** Hostile client_id URLs aimed at the trap, in every spelling of a special-use address. */
function hostileUrls(p: number): string[] {
  const hosts = [
    '127.0.0.1',
    '127.1.2.3',
    '2130706433', // 127.0.0.1 in decimal
    '0x7f.0.0.1', // hex
    '0177.0.0.1', // octal
    '017700000001',
    '127.1',
    '[::1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:ffff:7f00:1]',
    '[::127.0.0.1]',
    'localhost',
    'LOCALHOST.',
    '0.0.0.0',
    '[::]',
  ];
  return hosts.flatMap((h) => [`https://${h}:${p}/client.json`, `https://${h}:${p}/a/b?x=1`]);
}

test('hostile client_id URLs at the authorize endpoint open no connection and are answered on svc page', async () => {
  for (const [i, clientId] of hostileUrls(port).entries()) {
    // A fresh source budget for each case: the throttle is tested on its own below.
    await f.client.del(...(await f.client.keys('svc:oidc:throttle:cimd-*')), 'none');
    const res = await fetch(
      `${f.url}/api/oauth/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: 'https://evil.example/cb', state: String(i) })}`,
      { redirect: 'manual' },
    );
    assert.equal(res.status, 400, `${clientId}: ${res.status}`);
    assert.equal(res.headers.get('location'), null, clientId);
    assert.match(await res.text(), /invalid_client/);
  }
  assert.deepEqual(trapped, [], 'no connection reached the loopback listener');
});

test('every special-use address is refused, in IPv4, IPv6 and IPv4-mapped forms; public ones are not', () => {
  const refused = [
    '0.0.0.0',
    '10.0.0.1',
    '10.255.255.255',
    '100.64.0.1',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '192.0.0.8',
    '198.18.0.1',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '::127.0.0.1',
    '::ffff:8.8.8.8',
    '::ffff:0:808:808',
    '3fff::1',
    '5f00::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'febf::1',
    'ff02::1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
    'not-an-ip',
  ];
  for (const a of refused) assert.ok(isSpecialUseAddress(a), a);
  for (const a of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '2a00:1450:4001::200e']) {
    assert.ok(!isSpecialUseAddress(a), a);
  }
});

test('a name resolving to a special-use address is refused before connecting, whatever else it resolves to', async () => {
  const answers: Record<string, string[]> = {
    'internal.example': ['10.0.0.7'],
    'mixed.example': ['93.184.215.14', '127.0.0.1'],
    'metadata.example': ['169.254.169.254'],
    'six.example': ['::1'],
  };
  const cimdFetch = createCimdFetch({
    resolve: async (host) => (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
  });
  for (const host of Object.keys(answers)) {
    await assert.rejects(cimdFetch(`https://${host}:${port}/client.json`), CimdFetchRefused, host);
  }
  for (const url of hostileUrls(port)) await assert.rejects(cimdFetch(url), CimdFetchRefused, url);
  assert.deepEqual(trapped, []);
});

/** A local HTTP server for the bounds; the fetch under test is told to allow its loopback address. */
async function serve(handler: Parameters<typeof createHttpServer>[1]): Promise<{ server: Server; url: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createHttpServer((req, res) => {
    hits.push(req.url ?? '');
    handler!(req, res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { server, hits, url: `http://docs.test:${(server.address() as AddressInfo).port}` };
}

test('the address checked is the address connected to: DNS is asked once per fetch (no rebinding)', async (t) => {
  const doc = await serve((_req, res) => res.end('{"client_id":"x"}'));
  t.after(() => doc.server.close());
  let asked = 0;
  const cimdFetch = createCimdFetch({
    refuse: (a) => a !== '127.0.0.1' && isSpecialUseAddress(a),
    // First answer allowed, every later one a forbidden address: a rebinding name server.
    resolve: async () => [{ address: asked++ === 0 ? '127.0.0.1' : '10.0.0.1', family: 4 }],
  });
  const res = await cimdFetch(`${doc.url}/client.json`);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), '{"client_id":"x"}');
  assert.equal(asked, 1, 'resolved once, and the socket used that answer');
  await assert.rejects(cimdFetch(`${doc.url}/client.json`), CimdFetchRefused, 'the next fetch sees the new answer and refuses it');
});

const local = createCimdFetch({ refuse: () => false, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });

test(`size: a document of ${CIMD_MAX_DOCUMENT_BYTES} bytes is read, one byte more is refused, declared or streamed`, async (t) => {
  const doc = await serve((req, res) => {
    const n = Number(new URL(req.url!, 'http://x').searchParams.get('n'));
    if (req.url!.startsWith('/declared')) res.setHeader('content-length', String(n));
    else res.write(''); // chunked: the length is known only by reading
    res.end(Buffer.alloc(n, 0x20));
  });
  t.after(() => doc.server.close());
  assert.equal((await (await local(`${doc.url}/streamed?n=${CIMD_MAX_DOCUMENT_BYTES}`)).arrayBuffer()).byteLength, CIMD_MAX_DOCUMENT_BYTES);
  await assert.rejects(local(`${doc.url}/streamed?n=${CIMD_MAX_DOCUMENT_BYTES + 1}`), /more than 8192 bytes/);
  await assert.rejects(local(`${doc.url}/declared?n=${CIMD_MAX_DOCUMENT_BYTES + 1}`), /more than 8192/);
  await assert.rejects(local(`${doc.url}/streamed?n=${1024 * 1024}`), /more than 8192 bytes/);
});

test(`time: a server that drips its answer is cut off after ${CIMD_FETCH_TIMEOUT_MS} ms`, async (t) => {
  const timers = new Set<NodeJS.Timeout>();
  const doc = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const drip = setInterval(() => res.write(' '), 100);
    timers.add(drip);
    res.on('close', () => clearInterval(drip));
  });
  t.after(() => {
    for (const timer of timers) clearInterval(timer);
    doc.server.closeAllConnections();
    doc.server.close();
  });
  const started = performance.now();
  await assert.rejects(local(`${doc.url}/slow.json`), /took longer than its time allows/);
  const took = performance.now() - started;
  assert.ok(took >= CIMD_FETCH_TIMEOUT_MS - 50 && took < CIMD_FETCH_TIMEOUT_MS + 3000, `cut off after ${Math.round(took)} ms`);
});

test('redirects are never followed, to another host or the same', async (t) => {
  const target = await serve((_req, res) => res.end('{}'));
  const doc = await serve((req, res) => {
    res.writeHead(302, { location: req.url === '/same' ? '/client.json' : `${target.url}/client.json` });
    res.end();
  });
  t.after(() => {
    doc.server.close();
    target.server.close();
  });
  for (const path of ['/other', '/same']) {
    const res = await local(`${doc.url}${path}`);
    assert.equal(res.status, 302, path);
  }
  assert.deepEqual(target.hits, []);
  assert.deepEqual(doc.hits, ['/other', '/same']);
});

test(`throttle: ${CIMD_FETCH_LIMITS.perSource.limit} fetches per source address, then 429 with Retry-After at the authorize endpoint`, async () => {
  await f.client.del(...(await f.client.keys('svc:oidc:throttle:cimd-*')), 'none');
  const authorize = (i: number) =>
    fetch(
      `${f.url}/api/oauth/authorize?${new URLSearchParams({ client_id: `https://127.0.0.1:${port}/c${i}.json`, response_type: 'code' })}`,
      {
        redirect: 'manual',
      },
    );
  for (let i = 0; i < CIMD_FETCH_LIMITS.perSource.limit; i++) assert.equal((await authorize(i)).status, 400, `fetch ${i}`);
  const refused = await authorize(999);
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
  assert.match(await refused.text(), /too many client metadata documents fetched from this address/);
});

test(`throttle: ${CIMD_FETCH_LIMITS.perHost.limit} fetches per client_id host, from any number of sources`, async () => {
  const allowFetch = cimdAllowFetch({ allowedHosts: ['*'], throttle: createThrottle(f.client) });
  const ctx = (ip: string) => ({ ip, set: () => undefined, state: {} }) as never;
  for (let i = 0; i < CIMD_FETCH_LIMITS.perHost.limit; i++) {
    assert.equal(await allowFetch(ctx(`203.0.113.${i}`), `https://busy.example/c${i}.json`), true);
  }
  await assert.rejects(allowFetch(ctx('198.51.100.1'), 'https://busy.example/x.json'), {
    statusCode: 429,
    error_description: /too many client metadata documents fetched of busy.example/,
  });
  assert.equal(await allowFetch(ctx('198.51.100.1'), 'https://other.example/x.json'), true, 'another host is not held back');
  assert.equal(
    await cimdAllowFetch({ allowedHosts: ['good.example'], throttle: createThrottle(f.client) })(ctx('1.1.1.1'), 'https://bad.example/x'),
    false,
  );
});
