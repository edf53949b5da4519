/**
 * Rotating the key svc signs forwarded tokens with (docs/upstream-servers.md "Key rotation"), as an
 * operator does it: `svc-admin upstream-signing-key rotate` against two running gateways, whose
 * clock the test moves. The new key is published beside the old one, every gateway signs with it
 * from its time on without a restart, a token signed with the old key still verifies with
 * @svc/upstream-auth (and jose) while it lives, and the old key leaves the JWK Set once its last
 * tokens have expired. A second rotation before the first has taken effect is refused.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { connectRedis, createAccounts, K, type Redis } from '@svc/accounts';
import { loadConfig, type Config } from '@svc/config';
import { createLogger } from '@svc/logger';
import { startGateway, type RunningGateway } from '@svc/mcp-gateway/server.ts';
import { freePort, startRedis, testClock, waitFor, type RedisFixture } from '@svc/testkit';
import { createSvcTokenVerifier } from '@svc/upstream-auth';
import { rotateSigningKey } from '@svc/upstreams';
import { UPSTREAM_LIMITS } from '@svc/upstreams/limits.ts';
import { startSdkV1Upstream, type TestUpstream } from '../support/upstream-servers.ts';

const root = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
// Frozen at the real time: svc-admin dates its rotation by the real clock, the gateways by this one.
const clock = testClock();
const { publishLeadSeconds, retireAfterSeconds, reloadSeconds } = UPSTREAM_LIMITS.signingKeys;

let redis: RedisFixture;
let client: Redis;
let config: Config;
let baseUrl: string;
const gateways: RunningGateway[] = [];
let upstream: TestUpstream;
let key: string;
let project: string;

before(async () => {
  redis = await startRedis();
  baseUrl = `http://127.0.0.1:${await freePort()}`;
  config = loadConfig({
    NODE_ENV: 'test',
    REDIS_URL: redis.url,
    AUTH_URL: 'http://127.0.0.1:1',
    BASE_URL: baseUrl,
    LOG_LEVEL: 'error',
    UPSTREAM_ALLOWED_PRIVATE: '127.0.0.1/32',
  });
  const logger = createLogger({ service: 'signing-keys', level: 'error', silent: true });
  // Two replicas with one public URL: each signs with the keys it read from Redis.
  for (const port of [new URL(baseUrl).port, String(await freePort())])
    gateways.push(await startGateway({ config: { ...config, port: Number(port) }, logger, now: clock.now }));
  for (const g of gateways) await waitFor(async () => (await fetch(`${g.url}/readyz`)).ok, 'the gateway to reach Redis');
  client = connectRedis(redis.url, { name: 'signing-keys-test' });
  const accounts = createAccounts(client, { pepper: config.keyPepper, bcryptCost: 4 });
  const user = await accounts.users.create({ emailVerified: true, email: 'rotation@example.com' });
  project = 'rotation';
  await accounts.workspaces.createProject({ slug: project, workspace: user.workspace });
  key = (await accounts.keys.createUserKey({ userId: user.id })).key;
  // It records each request's token; the test verifies them itself, on the gateways' clock.
  upstream = await startSdkV1Upstream({ json: true });
  const added = await fetch(`${baseUrl}/api/v1/projects/${project}/upstreams`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'notes', url: upstream.url }),
  });
  assert.equal(added.status, 201, await added.text());
});
after(async () => {
  await upstream?.close();
  for (const g of gateways) await g.close();
  client?.disconnect();
  await redis?.stop();
});

/** A forwarded call through gateway `g`: the token the upstream received for it. */
async function tokenVia(g: RunningGateway): Promise<string> {
  const from = upstream.calls.length;
  const res = await fetch(`${g.url}/mcp/${project}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'notes__read_notes', arguments: {} } }),
  });
  const text = await res.text();
  assert.ok(text.includes('"result"'), text);
  const authorization = upstream.calls.slice(from).find((c) => c.rpcMethod === 'tools/call')?.authorization;
  if (!authorization?.startsWith('Bearer ')) assert.fail('the call carried a token');
  return authorization.slice('Bearer '.length);
}

const kidOf = (token: string) => decodeProtectedHeader(token).kid;

async function jwks(): Promise<JSONWebKeySet> {
  return (await (await fetch(`${baseUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
}

/** Verified as an upstream does (@svc/upstream-auth, a fresh key-set cache) and with jose alone. */
async function verifies(token: string): Promise<void> {
  const verifier = createSvcTokenVerifier({ issuer: baseUrl, audience: upstream.url, now: clock.now, replay: 'allow' });
  const info = await verifier.verifyAccessToken(token);
  assert.equal(info.extra.tool, 'read_notes');
  const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(await jwks()), {
    issuer: baseUrl,
    audience: upstream.url,
    typ: 'at+jwt',
    algorithms: ['ES256'],
    currentDate: new Date(clock.now()),
  });
  assert.equal(protectedHeader.kid, kidOf(token));
  assert.equal(payload['scope'], 'svc:admin');
}

interface RotateOutput {
  kid: string;
  signs_from: string;
  previous_kid: string | null;
  previous_published_until: string | null;
}

function admin(): Promise<{ stdout: string }> {
  return run(resolve(root, 'scripts/node'), ['packages/svc-admin/src/main.ts', 'upstream-signing-key', 'rotate', '--json'], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'test', REDIS_URL: redis.url, KEY_PEPPER: config.keyPepper },
  });
}

test('svc-admin upstream-signing-key rotate: both keys published, the new one signs from its time on every gateway, the old one leaves the set after its tokens', async () => {
  const before = await tokenVia(gateways[0]!);
  const oldKid = kidOf(before);
  await verifies(before);
  assert.deepEqual(
    (await jwks()).keys.map((k) => k.kid),
    [oldKid],
  );

  const rotated = JSON.parse((await admin()).stdout) as RotateOutput;
  assert.equal(rotated.previous_kid, oldKid);
  assert.notEqual(rotated.kid, oldKid);
  const signsFrom = Date.parse(rotated.signs_from);
  const publishedUntil = Date.parse(rotated.previous_published_until!);
  assert.ok(signsFrom >= clock.now() + publishLeadSeconds * 1000 - 60_000, rotated.signs_from);
  assert.equal(publishedUntil, signsFrom + retireAfterSeconds * 1000);

  // A second rotation before the first has taken effect: refused, nothing changed.
  const refused = await admin().then(
    () => null,
    (err: { code?: number; stdout?: string }) => err,
  );
  assert.equal(refused?.code, 1);
  assert.equal(JSON.parse(refused.stdout!).error.code, 'conflict');

  // Within a reload interval every gateway publishes both keys, and the old token still verifies.
  clock.advance(reloadSeconds * 1000);
  await waitFor(async () => (await jwks()).keys.length === 2, 'both keys in the JWK Set');
  assert.deepEqual(
    (await jwks()).keys.map((k) => k.kid),
    [rotated.kid, oldKid],
  );
  await verifies(before);

  // Up to its time the old key signs; from it, the new one, on both gateways.
  clock.set(signsFrom - 1_000);
  const lastOld = await tokenVia(gateways[1]!);
  assert.equal(kidOf(lastOld), oldKid);
  clock.set(signsFrom);
  for (const g of gateways) {
    const fresh = await tokenVia(g);
    assert.equal(kidOf(fresh), rotated.kid);
    await verifies(fresh);
  }
  // The old key's last token still verifies while it lives: its key is still published.
  await verifies(lastOld);

  // Once its last tokens have expired, the old key leaves the set.
  clock.set(publishedUntil - 1_000);
  assert.deepEqual(
    (await jwks()).keys.map((k) => k.kid),
    [rotated.kid, oldKid],
  );
  clock.set(publishedUntil);
  assert.deepEqual(
    (await jwks()).keys.map((k) => k.kid),
    [rotated.kid],
  );
  await verifies(await tokenVia(gateways[1]!));

  // With the new key in use the next rotation is allowed (svc-admin's own, on the moved clock: the
  // command dates by the real one) and replaces it; the retired key is dropped from Redis.
  const next = await rotateSigningKey(client, config.keyPepper, clock.now());
  assert.equal(next.replaced?.kid, rotated.kid);
  const stored = JSON.parse((await client.get(K.upstreamSigningKeys()))!) as { keys: { kid: string }[] };
  assert.deepEqual(
    stored.keys.map((k) => k.kid),
    [next.kid, rotated.kid],
  );
});
