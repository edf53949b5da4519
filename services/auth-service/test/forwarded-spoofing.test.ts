/**
 * A client-written forwarding header never changes which bucket counts (docs/operations.md
 * "Proxies"). Generated: every throttled endpoint x every header variant x every TRUST_PROXY form,
 * with a real local proxy in front where the configuration says there is one. The client speaks
 * from 127.0.0.3; the proxy connects to the service from 127.0.0.2 and appends the address it saw
 * to X-Forwarded-For (as ingress-nginx does with compute-full-forwarded-for). After each request
 * the address subject of every throttle key in Redis must be the one the configuration names.
 */
import assert from 'node:assert/strict';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startAuth, type AuthFixture } from './support.ts';

const CLIENT = '127.0.0.3';
const PROXY = '127.0.0.2';

/** What a hostile client writes, besides nothing at all. */
const VARIANTS: Record<string, Record<string, string>> = {
  none: {},
  'xff one': { 'x-forwarded-for': '203.0.113.5' },
  'xff list': { 'x-forwarded-for': '203.0.113.5, 198.51.100.1' },
  'xff many hops': { 'x-forwarded-for': Array.from({ length: 40 }, (_, i) => `10.0.${i}.1`).join(', ') },
  'xff loopback': { 'x-forwarded-for': '127.0.0.1' },
  'xff ipv6': { 'x-forwarded-for': '2001:db8::1, [2001:db8::2]:443' },
  'xff mapped': { 'x-forwarded-for': '::ffff:203.0.113.9' },
  'xff garbage': { 'x-forwarded-for': 'unknown, %zz, <script>, ' + 'x'.repeat(500) },
  'xff empty entries': { 'x-forwarded-for': ', , ,' },
  forwarded: { forwarded: 'for=203.0.113.5;proto=https, for="[2001:db8::1]"' },
  'x-real-ip': { 'x-real-ip': '203.0.113.5' },
  'all at once': {
    'x-forwarded-for': '203.0.113.5',
    forwarded: 'for=198.51.100.1',
    'x-real-ip': '192.0.2.1',
    'x-client-ip': '192.0.2.2',
    'cf-connecting-ip': '192.0.2.3',
    'true-client-ip': '192.0.2.4',
  },
};

interface Sent {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** One request from `localAddress` (node:http: fetch cannot choose the source address). */
function send(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; localAddress: string },
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const body = init.body ?? '';
    const req = request(
      url,
      {
        method: init.method ?? 'GET',
        localAddress: init.localAddress,
        headers: { ...init.headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A tiny forwarding proxy: connects upstream from PROXY and appends its peer to X-Forwarded-For. */
async function startProxy(upstream: string): Promise<{ url: string; server: Server }> {
  const target = new URL(upstream);
  const server = createServer((req, res) => {
    const seen = req.socket.remoteAddress ?? '';
    const prior = req.headers['x-forwarded-for'];
    const up = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        localAddress: PROXY,
        headers: { ...req.headers, 'x-forwarded-for': prior ? `${String(prior)}, ${seen}` : seen },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** The CSRF token and cookie of a page, fetched the same way (spoofed headers included). */
async function formOf(base: string, path: string, headers: Record<string, string>, from: string) {
  const page = await send(`${base}${path}`, { headers, localAddress: from });
  const cookie = [page.headers['set-cookie'] ?? []]
    .flat()
    .map((c) => c.split(';')[0])
    .join('; ');
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '' };
}

/** Every throttled endpoint, as one request each; `n` makes each email new. */
const ENDPOINTS: Record<string, (base: string, headers: Record<string, string>, from: string, n: number) => Promise<Sent>> = {
  'sign-in': async (base, headers, from, n) => {
    const { cookie, csrf } = await formOf(base, '/signin', headers, from);
    const body = new URLSearchParams({ csrf, email: `someone${n}@example.com`, password: 'wrong password here' }).toString();
    return send(`${base}/signin`, { method: 'POST', headers: { ...headers, ...FORM, cookie }, body, localAddress: from });
  },
  'sign-up': async (base, headers, from, n) => {
    const { cookie, csrf } = await formOf(base, '/signup', headers, from);
    const body = new URLSearchParams({ csrf, email: `new${n}@example.com`, password: 'short' }).toString();
    return send(`${base}/signup`, { method: 'POST', headers: { ...headers, ...FORM, cookie }, body, localAddress: from });
  },
  'reset request': async (base, headers, from, n) => {
    const { cookie, csrf } = await formOf(base, '/forgot', headers, from);
    const body = new URLSearchParams({ csrf, email: `lost${n}@example.com` }).toString();
    return send(`${base}/forgot`, { method: 'POST', headers: { ...headers, ...FORM, cookie }, body, localAddress: from });
  },
  'client registration': (base, headers, from) =>
    send(`${base}/api/oauth/register`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'spoof', redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' }),
      localAddress: from,
    }),
  'device code entry': (base, headers, from) => send(`${base}/device?code=BCDF-0000`, { headers, localAddress: from }),
  'passwordless sign-in page': (base, headers, from) => send(`${base}/signin/passkey`, { headers, localAddress: from }),
  // A metadata document's fetch is counted per source before any connection (a loopback host is then refused).
  'client metadata fetch': (base, headers, from, n) =>
    send(`${base}/api/oauth/authorize?${new URLSearchParams({ client_id: `https://127.0.0.1:9/spoof${n}.json`, response_type: 'code' })}`, {
      headers,
      localAddress: from,
    }),
};

/** The address each throttle key of Redis counts against (the email part of a per-account key dropped). */
async function countedAddresses(f: AuthFixture): Promise<string[]> {
  const keys = await f.client.keys('svc:oidc:throttle:*');
  const addresses = new Set<string>();
  for (const key of keys) {
    const [scope, ...rest] = key.slice('svc:oidc:throttle:'.length).split(':');
    const subject = rest.join(':');
    if (scope?.endsWith('-ip')) addresses.add(subject);
    else if (scope === 'signin-account') addresses.add(subject.slice(subject.indexOf('|') + 1));
  }
  return [...addresses];
}

/** Each TRUST_PROXY form, the way requests reach the service, and the address that must count. */
const SETUPS = [
  { trust: 'off', via: 'direct', counts: CLIENT },
  { trust: 'off', via: 'proxy', counts: PROXY },
  { trust: '1', via: 'proxy', counts: CLIENT },
  { trust: `${PROXY}, 10.0.0.0/8`, via: 'proxy', counts: CLIENT },
  { trust: `${PROXY}, 10.0.0.0/8`, via: 'direct', counts: CLIENT },
] as const;

for (const setup of SETUPS) {
  describe(`TRUST_PROXY=${setup.trust}, ${setup.via}`, () => {
    let f: AuthFixture;
    let proxy: { url: string; server: Server } | null = null;
    let base = '';
    before(async () => {
      f = await startAuth({ env: { TRUST_PROXY: setup.trust } });
      proxy = setup.via === 'proxy' ? await startProxy(f.url) : null;
      base = proxy?.url ?? f.url;
    });
    after(async () => {
      proxy?.server.close();
      await f.close();
    });

    let n = 0;
    for (const [endpoint, call] of Object.entries(ENDPOINTS)) {
      test(`${endpoint}: every spoofed header counts against ${setup.counts}`, async () => {
        for (const [variant, headers] of Object.entries(VARIANTS)) {
          const keys = await f.client.keys('svc:oidc:throttle:*');
          if (keys.length) await f.client.del(...keys);
          const res = await call(base, headers, CLIENT, n++);
          assert.ok(res.status < 500, `${variant}: status ${res.status}`);
          assert.deepEqual(await countedAddresses(f), [setup.counts], `${endpoint}, ${variant}`);
        }
      });
    }
  });
}
