/**
 * `pnpm bench:dpop`: what a DPoP proof costs on the gateway's hot path (docs/benchmarks.md "DPoP").
 * One gateway, a cached OAuth token, tools/call svc_help, two cases in alternating rounds:
 * - bearer: an unbound token with `Authorization: Bearer`, and a signed DPoP header the gateway
 *   ignores (RFC 9449 §7.2), so the load generator signs a proof in both cases and only the
 *   gateway's work differs;
 * - DPoP: a bound token with `Authorization: DPoP` and a fresh proof per request (checked, jti
 *   set NX in the rate-limit call).
 * Prints requests/s, p50/p99, Redis commands per request, and the in-process CPU time of one
 * proof check.
 *   BENCH_SECONDS (default 8), BENCH_CONNECTIONS (default 50), BENCH_ROUNDS (default 3)
 */
import { generateKeyPairSync, hash, randomUUID, sign } from 'node:crypto';
import autocannon from 'autocannon';
import { oidcRecordKey } from '@svc/accounts';
import { generateCredential } from '@svc/credentials';
import { createDpopProofCheck } from '../services/mcp-gateway/src/auth/dpop-proof.ts';
import { benchStack, child, stop, waitHttp } from './stack.ts';

const seconds = Number(process.env['BENCH_SECONDS'] ?? 8);
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const rounds = Math.max(1, Number(process.env['BENCH_ROUNDS'] ?? 3));
const out = (line: string) => process.stdout.write(`${line}\n`);

const { redis, base, env, client, accounts } = await benchStack('bench');
// benchStack's person owns the project: the tokens act for them.
const owner = await accounts.users.findByEmail('bench@example.com');
if (!owner) throw new Error('benchStack creates bench@example.com');

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwk = publicKey.export({ format: 'jwk' }) as { crv: string; kty: string; x: string; y: string };
// RFC 7638: the SHA-256 of the required members in lexicographic order.
const jkt = hash('sha256', JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }), 'base64url');
const header = Buffer.from(JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk })).toString('base64url');
const htu = `${base}/mcp/bench`;

/** A fresh proof for a POST to the MCP URL with `token` (RFC 9449 §4.2), signed synchronously. */
function proofFor(token: string): string {
  const claims = { htm: 'POST', htu, iat: Math.floor(Date.now() / 1000), jti: randomUUID(), ath: hash('sha256', token, 'base64url') };
  const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

/** An access token record of the project's owner as oidc-provider stores it, bound to the bench's key or not. */
async function plantToken(bound: boolean): Promise<string> {
  const user = owner!;
  const token = generateCredential('access_token');
  const grantId = `grant-${randomUUID()}`;
  const aud = htu;
  await client.hset(
    oidcRecordKey('Grant', grantId),
    'payload',
    JSON.stringify({ kind: 'Grant', accountId: user.id, resources: { [aud]: 'mcp' } }),
  );
  const payload = {
    kind: 'AccessToken',
    jti: token,
    exp: Math.floor(Date.now() / 1000) + 3600,
    accountId: user.id,
    clientId: 'bench',
    grantId,
    aud,
    scope: 'mcp',
    ...(bound ? { jkt } : {}),
  };
  await client.hset(oidcRecordKey('AccessToken', token), 'payload', JSON.stringify(payload));
  return token;
}

const gw = child(['services/mcp-gateway/src/main.ts'], env);
await waitHttp(`${base}/healthz`);
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_help', arguments: {} } });
const plain = await plantToken(false);
const bound = await plantToken(true);

interface Case {
  name: string;
  scheme: 'Bearer' | 'DPoP';
  token: string;
}
const cases: Case[] = [
  { name: 'gateway svc_help, Bearer (proof signed, ignored)', scheme: 'Bearer', token: plain },
  { name: 'gateway svc_help, DPoP-bound token + proof', scheme: 'DPoP', token: bound },
];

async function commands(): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^svc_gateway_redis_commands_total (\d+)/m.exec(text)?.[1] ?? NaN);
}

async function load(c: Case, duration: number) {
  const before = await commands();
  const r = await autocannon({
    url: `${base}/mcp/bench`,
    connections,
    duration,
    pipelining: 1,
    requests: [
      {
        method: 'POST',
        body,
        setupRequest: (req) => ({
          ...req,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `${c.scheme} ${c.token}`,
            dpop: proofFor(c.token),
          },
        }),
      },
    ],
  });
  const perRequest = ((await commands()) - before) / Math.max(1, r.requests.total);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, perRequest };
}

for (const c of cases) {
  const probe = await fetch(`${base}/mcp/bench`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `${c.scheme} ${c.token}`,
      dpop: proofFor(c.token),
    },
  });
  if (probe.status !== 200) throw new Error(`${c.name}: ${probe.status} ${await probe.text()}`);
  await load(c, 2);
}
const results = new Map<Case, Awaited<ReturnType<typeof load>>[]>(cases.map((c) => [c, []]));
for (let round = 0; round < rounds; round++) {
  for (const c of round % 2 ? [...cases].reverse() : cases) results.get(c)!.push(await load(c, seconds));
  out(`  round ${round + 1}: ${cases.map((c) => results.get(c)!.at(-1)!.rps.toFixed(0)).join(' / ')} req/s`);
}
out(
  `\n${'case'.padEnd(52)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'non-2xx'.padStart(8)} ${'cmds/req'.padStart(9)}`,
);
for (const c of cases) {
  const m = [...results.get(c)!].sort((a, b) => a.rps - b.rps)[Math.floor(rounds / 2)]!;
  out(
    `${c.name.padEnd(52)} ${m.rps.toFixed(0).padStart(8)} ${String(m.p50).padStart(7)} ${String(m.p99).padStart(7)} ${String(m.non2xx).padStart(8)} ${m.perRequest.toFixed(2).padStart(9)}`,
  );
}

// The proof check alone, in this process: CPU time per check (signature verification dominates).
const N = 2000;
const proofs = Array.from({ length: N }, () => proofFor(bound));
const checkDpopProof = createDpopProofCheck();
const cpu = process.cpuUsage();
for (const p of proofs)
  await checkDpopProof({ header: p, method: 'POST', url: htu, accessToken: bound, boundJkt: jkt, tenant: 'bench', nowMs: Date.now() });
const used = process.cpuUsage(cpu);
out(`\none proof check (ES256, jose): ${((used.user + used.system) / N).toFixed(0)} µs of CPU`);

await stop(gw);
client.disconnect();
await redis.stop();
process.exit(0);
