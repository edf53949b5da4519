/**
 * `pnpm bench:auth`: the auth-service under load (docs/benchmarks.md "Authorization server").
 * One auth-service process (bench/auth-server.ts) on a private Redis; six cases, each alone and
 * interleaved in rounds as `pnpm bench` does (each round starting one case later), each reporting
 * its median round by requests per CPU-second of the auth-service process (process.cpuUsage read
 * over IPC before and after the window), p50/p99, and Redis commands per request (INFO
 * commandstats before and after; nothing else uses this Redis during a window). The refresh case
 * has two baselines in the same rounds: oidc-provider alone (bench/provider-alone-server.ts)
 * answering the same grant from records in a Map, and the same with its records in Redis through a
 * plain adapter, their CPU per grant read the same way; the ratios are printed (what the
 * auth-service adds costs, whatever the host's speed, and how much of it storage alone costs).
 * BENCH_OTHER=<path of another checkout, set up> adds that checkout's auth-service on the same
 * Redis, its refresh grant in the same rounds, and prints this / other per round: a change measured
 * side by side (BENCH_OTHER_FLAGS: node options for that side only, to compare a flag within one
 * checkout).
 *   BENCH_SECONDS (default 5), BENCH_CONNECTIONS (default 16), BENCH_ROUNDS (default 3),
 *   BENCH_WARMUP (default 1: rounds run before those counted, in the same order, not counted),
 *   BENCH_DEVICES (default 1000: devices polling every 5 s), BENCH_PROFILE=1 (--cpu-prof),
 *   BENCH_HALF_RATE=1 (then the refresh and client-credentials grants again at half their median
 *   requests/s, held fixed: their p50/p99 below capacity), BENCH_CASES=refresh,credentials (only
 *   the cases whose name holds one of the words)
 */
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createAccounts, type PublicJwk } from '@svc/accounts';
import { freePort } from '@svc/testkit';
import type { AuthServerRequest } from './auth-server.ts';
import { closedLoop, commandsPerRequest, paced, quantile, redisCommands, redisReads, type Window } from './auth-load.ts';
import { benchStack, machineAnchor } from './stack.ts';

const seconds = Number(process.env['BENCH_SECONDS'] ?? 5);
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 16);
const rounds = Math.max(1, Number(process.env['BENCH_ROUNDS'] ?? 3));
/** Rounds run first and not counted (BENCH_WARMUP, default 1). */
const warmUp = Math.max(0, Number(process.env['BENCH_WARMUP'] ?? 1));
const devices = Number(process.env['BENCH_DEVICES'] ?? 1000);
const halfRate = process.env['BENCH_HALF_RATE'] === '1';
/** BENCH_CASES: a comma-separated list of words; only the cases whose name holds one of them run. */
const only = process.env['BENCH_CASES']?.split(',').filter(Boolean) ?? [];
/** The hash cost of the sign-in case: the cost the service creates passwords with (createAccounts' default). */
const SIGN_IN_BCRYPT_COST = 10;
const out = (line: string) => process.stdout.write(`${line}\n`);

const { redis, env, client, accounts, workspace } = await benchStack('bench');
const owner = (await accounts.users.findByEmail('bench@example.com'))!;
const port = await freePort();
const auth = `http://127.0.0.1:${port}`;
const resource = `${env.BASE_URL}/mcp/bench`;

/** A request without its id (Omit distributed over the union). */
type Ask = AuthServerRequest extends infer R ? (R extends AuthServerRequest ? Omit<R, 'id'> : never) : never;

/** A server process of the bench with its IPC channel (bench/auth-server.ts's protocol), once it listens. */
async function startServer(
  script: string,
  authUrl: string,
  checkout = resolve(import.meta.dirname, '..'),
  nodeFlags: string[] = [],
  extraEnv: Record<string, string> = {},
) {
  const child = spawn(
    process.execPath,
    [...nodeFlags, ...(process.env['BENCH_PROFILE'] ? ['--cpu-prof', `--cpu-prof-dir=${resolve('test-output/profile')}`] : []), script],
    {
      cwd: checkout,
      env: { ...process.env, ...env, ...extraEnv, AUTH_URL: authUrl },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  // A bench that fails leaves no server behind (each holds the bench's stderr open).
  process.once('exit', () => child.kill('SIGKILL'));
  const waiting = new Map<number, (reply: { value?: unknown; error?: string }) => void>();
  child.on('message', (m: { id: number; value?: unknown; error?: string }) => waiting.get(m.id)?.(m));
  let nextId = 1;
  async function ask<T>(req: Ask): Promise<T> {
    const id = nextId++;
    const reply = await new Promise<{ value?: unknown; error?: string }>((done) => {
      waiting.set(id, done);
      child.send({ ...req, id });
    });
    waiting.delete(id);
    if (reply.error) throw new Error(reply.error);
    return reply.value as T;
  }
  await new Promise<void>((ready, fail) => {
    waiting.set(0, () => ready());
    child.once('exit', (code) => fail(new Error(`${script} stopped before it listened (exit code ${code})`)));
  });
  return {
    ask,
    /** The process's own CPU time so far (user + system), in seconds. */
    cpuSeconds: async () => {
      const u = await ask<NodeJS.CpuUsage>({ op: 'cpu' });
      return (u.user + u.system) / 1e6;
    },
    stop: () => new Promise((done) => (child.once('exit', done), child.kill('SIGTERM'))),
  };
}
const server = await startServer('bench/auth-server.ts', auth);
const { ask, cpuSeconds } = server;

async function form(path: string, body: Record<string, string>, headers: Record<string, string> = {}, origin = auth) {
  const res = await fetch(`${origin}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body),
  });
  return {
    status: res.status,
    res,
    body: res.headers.get('content-type')?.includes('json') ? ((await res.json()) as Record<string, string>) : {},
  };
}
function expect(ok: boolean, what: string, detail: unknown): void {
  if (!ok) throw new Error(`${what}: ${JSON.stringify(detail)}`);
}

// Refresh: one token family (grant) per virtual client, rotated on every request.
const families = await ask<string[]>({ op: 'refresh', n: connections, accountId: owner.id, resource });
const accessTokens: string[] = [];
async function refresh(c: number): Promise<boolean> {
  const r = await form('/api/oauth/token', { grant_type: 'refresh_token', client_id: 'svc-mcp', refresh_token: families[c]! });
  expect(r.status === 200, 'refresh', r.body);
  families[c] = r.body['refresh_token']!;
  accessTokens[c] = r.body['access_token']!;
  return true;
}
for (let c = 0; c < connections; c++) await refresh(c);

// The refresh case's baseline: the same grant by oidc-provider alone (bench/provider-alone-server.ts).
const aloneUrl = `http://127.0.0.1:${await freePort()}`;
const alone = await startServer('bench/provider-alone-server.ts', aloneUrl);
const aloneFamilies = await alone.ask<string[]>({ op: 'refresh', n: connections, accountId: owner.id, resource });
// And the same library with its records in Redis (ALONE_STORE=redis): what storage costs it.
const onRedisUrl = `http://127.0.0.1:${await freePort()}`;
const onRedis = await startServer('bench/provider-alone-server.ts', onRedisUrl, undefined, [], { ALONE_STORE: 'redis' });
const onRedisFamilies = await onRedis.ask<string[]>({ op: 'refresh', n: connections, accountId: owner.id, resource });

// BENCH_OTHER: another checkout's auth-service on the same Redis, its refresh grant in the same rounds.
const otherCheckout = process.env['BENCH_OTHER'];
const otherUrl = `http://127.0.0.1:${await freePort()}`;
const otherFlags = process.env['BENCH_OTHER_FLAGS']?.split(' ').filter(Boolean) ?? [];
const other = otherCheckout ? await startServer('bench/auth-server.ts', otherUrl, resolve(otherCheckout), otherFlags) : null;
const otherFamilies = other ? await other.ask<string[]>({ op: 'refresh', n: connections, accountId: owner.id, resource }) : [];
async function refreshOther(c: number): Promise<boolean> {
  const r = await form(
    '/api/oauth/token',
    { grant_type: 'refresh_token', client_id: 'svc-mcp', refresh_token: otherFamilies[c]! },
    {},
    otherUrl,
  );
  expect(r.status === 200, 'refresh by the other checkout', r.body);
  otherFamilies[c] = r.body['refresh_token']!;
  return true;
}
/** A refresh grant of family `c` by a baseline server (oidc-provider alone, its records in `families`' server). */
async function refreshBaseline(families: string[], url: string, c: number): Promise<boolean> {
  const r = await form('/api/oauth/token', { grant_type: 'refresh_token', client_id: 'svc-mcp', refresh_token: families[c]! }, {}, url);
  expect(r.status === 200 && typeof r.body['access_token'] === 'string', `refresh by oidc-provider alone at ${url}`, r.body);
  families[c] = r.body['refresh_token']!;
  return true;
}

// Authorization code + PKCE: a registered public client; codes seeded through the provider's models.
const redirectUri = 'http://127.0.0.1:9/callback';
const registered = await fetch(`${auth}/api/oauth/register`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    client_name: 'Bench',
    application_type: 'native',
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: 'none',
  }),
});
const codeClient = ((await registered.json()) as { client_id: string }).client_id;
const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');
let codes: string[] = [];
async function exchange(): Promise<boolean> {
  const code = codes.pop();
  if (!code) return false;
  const r = await form('/api/oauth/token', {
    grant_type: 'authorization_code',
    client_id: codeClient,
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    resource,
  });
  expect(r.status === 200, 'code exchange', r.body);
  return true;
}

// Device flow: issuance in a closed loop; polling of BENCH_DEVICES pending codes at the interval.
async function issue(): Promise<string> {
  const r = await form('/api/oauth/device/code', { client_id: 'svc-mcp' });
  expect(r.status === 200, 'device code', r.body);
  return r.body['device_code']!;
}
const deviceCodes: string[] = [];
for (let i = 0; i < devices; i++) deviceCodes.push(await issue());
/** RFC 8628 §3.5: the 5 s interval, and a little over so no poll is early by a timer's slack. */
const POLL_EVERY_MS = 5_100;
const due = deviceCodes.map((_, i) => Date.now() + POLL_EVERY_MS + (i * POLL_EVERY_MS) / devices);
async function poll(i: number): Promise<void> {
  const r = await form('/api/oauth/token', {
    grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
    client_id: 'svc-mcp',
    device_code: deviceCodes[i]!,
  });
  expect(r.body['error'] === 'authorization_pending', 'device poll', r.body);
}

// Introspection of the virtual clients' access tokens by their own client.
async function introspect(c: number): Promise<boolean> {
  const r = await form('/api/oauth/introspect', { client_id: 'svc-mcp', token: accessTokens[c]! });
  expect(String(r.body['active']) === 'true', 'introspection', r.body);
  return true;
}

// Client credentials: a service account with an ES256 key; a fresh assertion per request.
const { bot } = await accounts.bots.create({ workspace, name: 'bench' });
await accounts.bots.grant(bot.id, 'bench', 'VIEWER');
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
await accounts.serviceAccountClients.setKeys(bot.id, {
  jwks: { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256' } as PublicJwk] },
});
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
function assertion(): string {
  const now = Math.floor(Date.now() / 1000);
  const input = `${b64({ alg: 'ES256', typ: 'JWT', kid: 'k1' })}.${b64({ iss: bot.id, sub: bot.id, aud: auth, iat: now, exp: now + 60, jti: randomUUID() })}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}
async function clientCredentials(): Promise<boolean> {
  const r = await form('/api/oauth/token', {
    grant_type: 'client_credentials',
    client_id: bot.id,
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: assertion(),
    resource,
  });
  expect(r.status === 200, 'client credentials', r.body);
  return true;
}

// Password sign-in: the page (CSRF token and cookie), then the form; people hashed at the service's cost.
const hashing = createAccounts(client, { pepper: 'unused', bcryptCost: SIGN_IN_BCRYPT_COST });
const PASSWORD = 'correct horse battery staple';
const people: string[] = [];
for (let i = 0; i < connections; i++) {
  const email = `signin-${i}@example.com`;
  await hashing.users.create({ emailVerified: true, email, password: PASSWORD });
  people.push(email);
}
async function signIn(c: number): Promise<boolean> {
  const page = await fetch(`${auth}/signin`);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const cookie = page.headers
    .getSetCookie()
    .map((v) => v.split(';')[0])
    .join('; ');
  const r = await form('/signin', { csrf, email: people[c]!, password: PASSWORD }, { cookie });
  expect(r.status === 303, 'sign-in', r.status);
  return true;
}

interface Case {
  name: string;
  /** Keycloak's sizing figure per vCPU for the same operation, when it gives one. */
  keycloak?: number;
  prepare?: () => Promise<void>;
  /** The CPU time of the process this case loads; the auth-service's unless said. */
  cpuSeconds?: () => Promise<number>;
  run: () => Promise<Window>;
  /** The same requests at a fixed rate (requests/s in all), for the p99 below capacity. */
  atRate?: (rate: number) => Promise<Window>;
}
const REFRESH_CASE = 'refresh grant (rotating, own family per client)';
const REFRESH_ALONE = 'refresh grant, oidc-provider alone (records in a Map, no Redis)';
const REFRESH_ON_REDIS = 'refresh grant, oidc-provider alone with its records in Redis (a plain adapter)';
const REFRESH_OTHER = 'refresh grant, BENCH_OTHER checkout';
const allCases: Case[] = [
  {
    name: REFRESH_CASE,
    keycloak: 120,
    run: () => closedLoop(connections, seconds, refresh),
    atRate: (rate) => closedLoop(connections, seconds, refresh, rate),
  },
  {
    name: REFRESH_ALONE,
    cpuSeconds: alone.cpuSeconds,
    run: () => closedLoop(connections, seconds, (c) => refreshBaseline(aloneFamilies, aloneUrl, c)),
  },
  {
    name: REFRESH_ON_REDIS,
    cpuSeconds: onRedis.cpuSeconds,
    run: () => closedLoop(connections, seconds, (c) => refreshBaseline(onRedisFamilies, onRedisUrl, c)),
  },
  ...(other
    ? [{ name: REFRESH_OTHER, keycloak: 120, cpuSeconds: other.cpuSeconds, run: () => closedLoop(connections, seconds, refreshOther) }]
    : []),
  {
    name: 'authorization code + PKCE exchange',
    prepare: async () => {
      codes = await ask<string[]>({
        op: 'codes',
        n: 600 * seconds,
        accountId: owner.id,
        resource,
        clientId: codeClient,
        redirectUri,
        challenge,
      });
    },
    run: () => closedLoop(connections, seconds, exchange),
  },
  { name: 'device code issuance', run: () => closedLoop(connections, seconds, async () => (await issue(), true)) },
  { name: `device code poll (${devices} devices, every 5.1 s)`, run: () => paced(due, POLL_EVERY_MS, seconds, poll) },
  { name: 'introspection', run: () => closedLoop(connections, seconds, introspect) },
  {
    name: 'client credentials, private_key_jwt',
    keycloak: 120,
    run: () => closedLoop(connections, seconds, clientCredentials),
    atRate: (rate) => closedLoop(connections, seconds, clientCredentials, rate),
  },
  {
    name: `password sign-in (page + form, bcrypt cost ${SIGN_IN_BCRYPT_COST})`,
    keycloak: 15,
    run: () => closedLoop(connections, seconds, signIn),
  },
];

const cases = allCases.filter((c) => only.length === 0 || only.some((word) => c.name.includes(word)));

interface Row {
  rps: number;
  perCore: number;
  p50: number;
  p99: number;
  cmds: number;
  /** Socket reads Redis processed per request: the round trips. */
  reads: number;
  /** The most frequent commands per request. */
  top: string;
  errors: number;
  firstError?: string;
}
async function measure(c: Case, run = c.run): Promise<Row> {
  await c.prepare?.();
  const cpu = c.cpuSeconds ?? cpuSeconds;
  const [cpu0, cmd0, reads0] = [await cpu(), await redisCommands(client), await redisReads(client)];
  const w = await run();
  const [cpu1, cmd1, reads1] = [await cpu(), await redisCommands(client), await redisReads(client)];
  const sorted = w.latencies.sort((a, b) => a - b);
  const commands = commandsPerRequest(cmd0, cmd1, w.requests);
  return {
    rps: (w.requests * 1000) / w.elapsedMs,
    perCore: w.requests / (cpu1 - cpu0),
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    cmds: commands.total,
    // Less the two INFO calls read after the window.
    reads: (reads1 - reads0 - 2) / Math.max(1, w.requests),
    top: commands.top,
    errors: w.errors,
    ...(w.firstError ? { firstError: w.firstError } : {}),
  };
}

const load = await import('node:os').then((os) => os.loadavg()[0]!.toFixed(1));
out(
  `auth-service: ${seconds} s a case, ${connections} virtual clients, ${rounds} rounds after ${warmUp} of warm-up; load average ${load} on ${navigator.hardwareConcurrency} cores`,
);
const results = new Map<Case, Row[]>(cases.map((c) => [c, []]));
// Rounds up to 0 warm the processes up (their code compiled, their caches filled) and are not
// counted: a long-running service answers from a warm process.
for (let round = 1 - warmUp; round <= rounds; round++) {
  const warm: Row[] = [];
  for (const c of cases.map((_, i) => cases[(((i + round - 1) % cases.length) + cases.length) % cases.length]!)) {
    const row = await measure(c);
    if (round > 0) results.get(c)!.push(row);
    else warm.push(row);
    if (row.firstError) out(`  ${c.name}: ${row.errors} errors, first: ${row.firstError}`);
  }
  if (round <= 0) out(`  warm-up round (not counted): ${warm.map((r) => r.perCore.toFixed(0)).join(' / ')} req/CPU-s`);
  else out(`  round ${round}: ${cases.map((c) => results.get(c)!.at(-1)!.perCore.toFixed(0)).join(' / ')} req/CPU-s`);
}
out(`\n| case | req/s | req/s per core | p50 ms | p99 ms | Redis cmds/req | Redis reads/req | errors | Keycloak per vCPU | ratio |`);
out(`| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |`);
/** A case's median round by requests per core. */
const median = (c: Case) => [...results.get(c)!].sort((a, b) => a.perCore - b.perCore)[Math.floor(rounds / 2)]!;
for (const c of cases) {
  const m = median(c);
  const ratio = c.keycloak ? (m.perCore / c.keycloak).toFixed(1) : 'n/a';
  out(
    `| ${c.name} | ${m.rps.toFixed(0)} | ${m.perCore.toFixed(0)} | ${m.p50.toFixed(1)} | ${m.p99.toFixed(1)} | ${m.cmds.toFixed(1)} | ${m.reads.toFixed(1)} | ${m.errors} | ${c.keycloak ?? 'n/a'} | ${ratio} |`,
  );
}
const refreshCase = cases.find((c) => c.name === REFRESH_CASE);
const baselines: [string, string][] = [
  [REFRESH_ALONE, 'oidc-provider alone'],
  [REFRESH_ON_REDIS, 'oidc-provider on Redis'],
];
if (refreshCase) out('');
for (const [name, short] of baselines) {
  const base = cases.find((c) => c.name === name);
  if (!refreshCase || !base) continue;
  const [svc, lib] = [median(refreshCase).perCore, median(base).perCore];
  out(
    `refresh grant, the auth-service / ${short}: ${(svc / lib).toFixed(2)} (${(1e6 / svc).toFixed(0)} and ${(1e6 / lib).toFixed(0)} µs of CPU a grant; the auth-service spends ${((1e6 * (lib - svc)) / (lib * svc)).toFixed(0)} µs a grant beyond it)`,
  );
}
// What 20 times Keycloak's figure leaves for everything svc adds beyond the library on Redis
// (docs/benchmarks.md "2026-12-07 (fourth entry)").
const onRedisCase = cases.find((c) => c.name === REFRESH_ON_REDIS);
if (refreshCase?.keycloak && onRedisCase) {
  const allowed = 1e6 / (20 * refreshCase.keycloak);
  const [svc, lib] = [1e6 / median(refreshCase).perCore, 1e6 / median(onRedisCase).perCore];
  out(
    `20 times Keycloak's figure allows ${allowed.toFixed(0)} µs of CPU a refresh grant; oidc-provider on Redis takes ${lib.toFixed(0)}, ` +
      `leaving ${(allowed - lib).toFixed(0)} for all the auth-service adds, which costs ${(svc - lib).toFixed(0)}`,
  );
}
const otherCase = cases.find((c) => c.name === REFRESH_OTHER);
if (refreshCase && otherCase) {
  const pairs = results.get(refreshCase)!.map((row, i) => row.perCore / results.get(otherCase)![i]!.perCore);
  out(
    `refresh grant, this checkout / BENCH_OTHER: median of the rounds' ratios ${[...pairs].sort((a, b) => a - b)[Math.floor(pairs.length / 2)]!.toFixed(3)} (rounds: ${pairs.map((r) => r.toFixed(3)).join(', ')})`,
  );
}
out('\nRedis commands per request, median round:');
for (const c of cases) if (median(c).top) out(`  ${c.name}: ${median(c).top}`);
if (halfRate) {
  out('\nAt half the median requests/s, held fixed:');
  for (const c of cases) {
    if (!c.atRate) continue;
    const rate = median(c).rps / 2;
    const m = await measure(c, () => c.atRate!(rate));
    out(
      `  ${c.name}: ${rate.toFixed(0)} req/s offered, ${m.rps.toFixed(0)} served, p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms, ${m.errors} errors`,
    );
  }
}
out(`\nload average after: ${(await import('node:os')).loadavg()[0]!.toFixed(1)}`);
// The machine's speed in this run (stack.ts machineAnchor): the ratios above are against a fixed
// external figure, so they move with the host as much as with svc's code.
out(
  `machine anchor: a bare node:http server spent ${(await machineAnchor()).toFixed(1)} µs of CPU a request in this run (15.8 on 2026-11-28's quiet machine)`,
);

await Promise.all([server.stop(), alone.stop(), onRedis.stop(), other?.stop()]);
client.disconnect();
await redis.stop();
process.exit(0);
