/**
 * DPoP-bound access tokens at the gateway (RFC 9449 §7; docs/auth-service.md "DPoP"): a bound
 * token works with the DPoP scheme and a proof of its key for this request, on MCP and REST; every
 * broken proof is 401 invalid_dpop_proof, a bound token used as a bearer token or with another
 * key is 401 invalid_token, each with a `WWW-Authenticate: DPoP` challenge; a proof's jti is
 * refused the second time, on either of two gateways; the check costs no Redis round trip of its
 * own. Tokens are planted as the auth-service stores them.
 */
import assert from 'node:assert/strict';
import { hash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { connectRedis, K, oidcRecordKey, type Redis } from '@svc/accounts';
import { generateCredential } from '@svc/credentials';
import { waitFor } from '@svc/testkit';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { DPOP_IAT_WINDOW_SECONDS, DPOP_JTI_MAX_LENGTH, DPOP_PROOF_MAX_LENGTH } from '../src/auth/dpop-proof.ts';
import type { RunningGateway } from '../src/server.ts';
import { call, post, startFixture, type GatewayFixture } from './support.ts';

interface Key {
  privateKey: CryptoKey;
  jwk: JWK;
  jkt: string;
}

let f: GatewayFixture;
let replica: RunningGateway;
let redis: Redis;
let project: string;
let ownerId: string;
let key: Key;
let otherKey: Key;

async function newKey(alg = 'ES256'): Promise<Key> {
  const pair = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(pair.publicKey);
  return { privateKey: pair.privateKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
}

before(async () => {
  f = await startFixture({ RATE_LIMIT_SCALE: '1000' });
  replica = await f.startReplica();
  redis = connectRedis(f.redis.url, { name: 'dpop-test' });
  const tag = Math.random().toString(36).slice(2, 8);
  const owner = await f.accounts.users.create({ emailVerified: true, email: `dpop-${tag}@example.com`, password: 'correct horse battery' });
  ownerId = owner.id;
  project = `dpop-${tag}`;
  await f.accounts.workspaces.createProject({ slug: project, workspace: owner.workspace });
  [key, otherKey] = [await newKey(), await newKey()];
});
after(async () => {
  redis.disconnect();
  await f.close();
});

/** An access token record as oidc-provider stores it, bound to `jkt` when given (RFC 9449 §6). */
async function plantToken(jkt: string | null, scope = 'mcp'): Promise<string> {
  const token = generateCredential('access_token');
  const grantId = `grant-${Math.random().toString(36).slice(2)}`;
  const aud = `${f.config.baseUrl}/mcp/${project}`;
  await redis.hset(
    oidcRecordKey('Grant', grantId),
    'payload',
    JSON.stringify({ kind: 'Grant', accountId: ownerId, resources: { [aud]: 'mcp:admin' } }),
  );
  const payload = {
    kind: 'AccessToken',
    jti: token,
    exp: Math.floor(Date.now() / 1000) + 3600,
    accountId: ownerId,
    clientId: 'registered-client',
    grantId,
    aud,
    scope,
    ...(jkt ? { jkt } : {}),
  };
  await redis.hset(oidcRecordKey('AccessToken', token), 'payload', JSON.stringify(payload));
  return token;
}

interface ProofOptions {
  signer?: Key;
  htm?: string;
  htu?: string;
  token?: string;
  iat?: number;
  jti?: string;
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
}

/** A DPoP proof (RFC 9449 §4.2) for POST to the project's MCP URL, unless told otherwise. */
async function proof(token: string, o: ProofOptions = {}): Promise<string> {
  const signer = o.signer ?? key;
  return new SignJWT({
    htm: o.htm ?? 'POST',
    htu: o.htu ?? `${f.url}/mcp/${project}`,
    iat: o.iat ?? Math.floor(Date.now() / 1000),
    jti: o.jti ?? crypto.randomUUID(),
    ath: hash('sha256', o.token ?? token, 'base64url'),
    ...o.claims,
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: signer.jwk, ...o.header })
    .sign(signer.privateKey);
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

const mcp = (token: string, headers: Record<string, string>, url = f.url) =>
  post(url, `/mcp/${project}`, call('svc_help'), { Authorization: `DPoP ${token}`, ...headers });

function assertRefused(r: Awaited<ReturnType<typeof post>>, code: 'invalid_dpop_proof' | 'invalid_token', message: RegExp, label: string) {
  assert.equal(r.status, 401, `${label}: ${r.text}`);
  assert.equal(r.body.error.data.code, code, label);
  assert.match(r.body.error.message, message, label);
  const challenge = r.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^DPoP realm="svc", /, `${label}: the DPoP scheme (RFC 9449 §7.1)`);
  assert.match(challenge, new RegExp(`error="${code}"`), label);
  assert.match(challenge, /algs="ES256 EdDSA Ed25519 PS256 RS256"/, label);
}

test('a DPoP-bound token with a proof of its key calls tools on MCP and REST, on either gateway', async () => {
  const token = await plantToken(key.jkt);
  assert.equal((await mcp(token, { DPoP: await proof(token) })).status, 200);
  // The replica serves the same public base URL: the proof names it, not the address connected to.
  const onReplica = await mcp(token, { DPoP: await proof(token) }, replica.url);
  assert.equal(onReplica.status, 200, onReplica.text);
  const replicaAddress = await mcp(token, { DPoP: await proof(token, { htu: `${replica.url}/mcp/${project}` }) }, replica.url);
  assertRefused(replicaAddress, 'invalid_dpop_proof', /htu must be/, 'a proof naming the address, not the public URL');
  const rest = `/api/v1/projects/${project}/tools/svc_help`;
  const r = await post(f.url, rest, {}, { Authorization: `DPoP ${token}`, DPoP: await proof(token, { htu: `${f.url}${rest}` }) });
  assert.equal(r.status, 200, r.text);
  // RFC 3986 §6.2.2-6.2.3 normalization: case of scheme and host, default port, percent-encoding.
  const shouted = `${f.url.replace('http://', 'HTTP://')}/%6Dcp/${project}?ignored=1#also`;
  assert.equal((await mcp(token, { DPoP: await proof(token, { htu: shouted }) })).status, 200);
});

test('each broken proof or misuse is refused with its error and a DPoP challenge', async () => {
  const token = await plantToken(key.jkt);
  const now = Math.floor(Date.now() / 1000);
  const secret = new TextEncoder().encode('a shared secret of thirty-two bytes!');
  const pair = await generateKeyPair('ES256', { extractable: true });
  const privateJwk = await exportJWK(pair.privateKey);
  // A symmetric key in the jwk header (a variable: jose's header type leaves `k` out).
  const octJwk: JWK = { kty: 'oct', k: Buffer.from(secret).toString('base64url') };
  const cases: [string, () => Promise<Record<string, string>>, 'invalid_dpop_proof' | 'invalid_token', RegExp][] = [
    ['no DPoP header', async () => ({}), 'invalid_dpop_proof', /the DPoP header is missing/],
    [
      'a proof for another URL',
      async () => ({ DPoP: await proof(token, { htu: `${f.url}/mcp/other-project` }) }),
      'invalid_dpop_proof',
      /htu must be/,
    ],
    [
      'a proof for another host',
      async () => ({ DPoP: await proof(token, { htu: `https://evil.example/mcp/${project}` }) }),
      'invalid_dpop_proof',
      /htu must be/,
    ],
    [
      'a forged Host with a proof for it',
      async () => ({
        DPoP: await proof(token, { htu: `http://evil.example/mcp/${project}` }),
        Host: 'evil.example',
        'X-Forwarded-Host': 'evil.example',
      }),
      'invalid_dpop_proof',
      /htu must be/,
    ],
    ['a proof for another method', async () => ({ DPoP: await proof(token, { htm: 'GET' }) }), 'invalid_dpop_proof', /htm must be POST/],
    [
      'a stale iat',
      async () => ({ DPoP: await proof(token, { iat: now - DPOP_IAT_WINDOW_SECONDS - 5 }) }),
      'invalid_dpop_proof',
      /iat must be within 60 seconds/,
    ],
    [
      'an iat in the future',
      async () => ({ DPoP: await proof(token, { iat: now + DPOP_IAT_WINDOW_SECONDS + 5 }) }),
      'invalid_dpop_proof',
      /iat must be within/,
    ],
    ['a wrong ath', async () => ({ DPoP: await proof(token, { token: `${token}x` }) }), 'invalid_dpop_proof', /ath is not the hash/],
    ['no ath', async () => ({ DPoP: await proof(token, { claims: { ath: undefined } }) }), 'invalid_dpop_proof', /ath is not the hash/],
    ['no jti', async () => ({ DPoP: await proof(token, { claims: { jti: undefined } }) }), 'invalid_dpop_proof', /jti must be/],
    [
      'a jti too long',
      async () => ({ DPoP: await proof(token, { jti: 'j'.repeat(DPOP_JTI_MAX_LENGTH + 1) }) }),
      'invalid_dpop_proof',
      /jti must be/,
    ],
    [
      'the wrong typ',
      async () => ({ DPoP: await proof(token, { header: { typ: 'JWT' } }) }),
      'invalid_dpop_proof',
      /typ must be dpop\+jwt/,
    ],
    [
      'another key than the bound one',
      async () => ({ DPoP: await proof(token, { signer: otherKey }) }),
      'invalid_token',
      /signed by another key/,
    ],
    [
      'the bound key in the jwk header, signed by another',
      async () => ({ DPoP: await proof(token, { signer: otherKey, header: { jwk: key.jwk } }) }),
      'invalid_dpop_proof',
      /signature does not verify/,
    ],
    [
      'alg none',
      async () => ({
        DPoP: `${b64({ alg: 'none', typ: 'dpop+jwt', jwk: key.jwk })}.${b64({ htm: 'POST', htu: `${f.url}/mcp/${project}`, iat: now, jti: 'n', ath: hash('sha256', token, 'base64url') })}.`,
      }),
      'invalid_dpop_proof',
      /alg must be one of/,
    ],
    [
      'HS256',
      async () => ({
        DPoP: await new SignJWT({
          htm: 'POST',
          htu: `${f.url}/mcp/${project}`,
          iat: now,
          jti: 'h',
          ath: hash('sha256', token, 'base64url'),
        })
          .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: octJwk })
          .sign(secret),
      }),
      'invalid_dpop_proof',
      /alg must be one of/,
    ],
    [
      'a private jwk',
      async () => ({
        DPoP: await new SignJWT({
          htm: 'POST',
          htu: `${f.url}/mcp/${project}`,
          iat: now,
          jti: 'p',
          ath: hash('sha256', token, 'base64url'),
        })
          .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: privateJwk })
          .sign(pair.privateKey),
      }),
      'invalid_dpop_proof',
      /must hold a public key/,
    ],
    ['not a JWS', async () => ({ DPoP: 'not-a-jwt' }), 'invalid_dpop_proof', /not a JWS/],
    ['a proof too long', async () => ({ DPoP: 'a'.repeat(DPOP_PROOF_MAX_LENGTH + 1) }), 'invalid_dpop_proof', /longer than 4096/],
    [
      'two DPoP headers',
      async () => ({ DPoP: `${await proof(token)}, ${await proof(token)}` }),
      'invalid_dpop_proof',
      /more than one DPoP header/,
    ],
  ];
  for (const [label, headers, code, message] of cases) assertRefused(await mcp(token, await headers()), code, message, label);

  const bearer = await post(f.url, `/mcp/${project}`, call('svc_help'), { Authorization: `Bearer ${token}`, DPoP: await proof(token) });
  assertRefused(bearer, 'invalid_token', /DPoP-bound and was sent as a bearer token/, 'bearer use of a bound token (RFC 9449 §7.2)');
  const noProof = await post(f.url, `/mcp/${project}`, call('svc_help'), { Authorization: `Bearer ${token}` });
  assertRefused(noProof, 'invalid_token', /sent as a bearer token/, 'bearer use without a proof');
});

test('an unbound token: bearer works whatever DPoP header comes along; the DPoP scheme is refused', async () => {
  const token = await plantToken(null);
  const withProof = await post(f.url, `/mcp/${project}`, call('svc_help'), { Authorization: `Bearer ${token}`, DPoP: await proof(token) });
  assert.equal(withProof.status, 200, withProof.text);
  assertRefused(await mcp(token, { DPoP: await proof(token) }), 'invalid_token', /not DPoP-bound/, 'an unbound token with the DPoP scheme');
  // An unknown token under the DPoP scheme is challenged with it too.
  assertRefused(
    await mcp(generateCredential('access_token'), { DPoP: await proof(token) }),
    'invalid_token',
    /Invalid OAuth token/,
    'unknown token',
  );
});

test("a proof's jti is accepted once, across two gateways, and even when its first request was refused", async () => {
  const token = await plantToken(key.jkt);
  const jti = crypto.randomUUID();
  assert.equal((await mcp(token, { DPoP: await proof(token, { jti }) })).status, 200);
  // The same jti in a new proof (same key) at the same gateway and at the replica.
  assertRefused(await mcp(token, { DPoP: await proof(token, { jti }) }), 'invalid_dpop_proof', /already used/, 'replayed');
  const atReplica = await proof(token, { jti });
  assertRefused(await mcp(token, { DPoP: atReplica }, replica.url), 'invalid_dpop_proof', /already used/, 'replayed on the replica');
  // Two identical proofs at once: one is admitted.
  const same = await proof(token);
  const both = await Promise.all([mcp(token, { DPoP: same }), mcp(token, { DPoP: same }, replica.url)]);
  assert.deepEqual(both.map((r) => r.status).sort(), [200, 401]);

  // A request refused before its rate-limit call (a bad body) still uses its proof up.
  const early = await proof(token);
  const bad = await post(f.url, `/mcp/${project}`, '{not json', { Authorization: `DPoP ${token}`, DPoP: early });
  assert.equal(bad.status, 400);
  await waitFor(async () => (await redis.keys('svc:rl:*:dpop:*')).length >= 4, {
    timeout: 5_000,
    message: 'the refused request claims its proof',
  });
  assertRefused(await mcp(token, { DPoP: early }), 'invalid_dpop_proof', /already used/, 'a proof of a refused request');
  for (const k of await redis.keys('svc:rl:*:dpop:*')) {
    const ttl = await redis.ttl(k);
    assert.ok(ttl > 0 && ttl <= 2 * DPOP_IAT_WINDOW_SECONDS, `${k} lives ${ttl} s`);
  }
});

test('a proof is used up by a call the policy refuses, and on a management route that makes no rate-limit call', async () => {
  const workspace = (await f.accounts.workspaces.getProject(project))!.workspace;
  const replayKey = (jti: string) => K.dpopProof(workspace, hash('sha256', `${key.jkt} ${jti}`, 'base64url'));
  const reader = await plantToken(key.jkt, 'mcp:read');
  const jti = crypto.randomUUID();
  const refused = await post(f.url, `/mcp/${project}`, call('svc_inject', {}), {
    Authorization: `DPoP ${reader}`,
    DPoP: await proof(reader, { jti }),
  });
  assert.equal(refused.status, 403, refused.text);
  await waitFor(async () => (await redis.exists(replayKey(jti))) === 1, { timeout: 5_000, message: 'the refused call claims its proof' });
  assertRefused(await mcp(reader, { DPoP: await proof(reader, { jti }) }), 'invalid_dpop_proof', /already used/, 'after a policy refusal');

  const admin = await plantToken(key.jkt, 'mcp:admin');
  const path = `/api/v1/projects/${project}/keys`;
  const listProof = await proof(admin, { htm: 'GET', htu: `${f.url}${path}` });
  const get = () => fetch(`${f.url}${path}`, { headers: { Authorization: `DPoP ${admin}`, DPoP: listProof } });
  const first = await get();
  assert.equal(first.status, 200, await first.text());
  const again = await get();
  assert.equal(again.status, 401);
  assert.match(again.headers.get('www-authenticate') ?? '', /^DPoP .*error="invalid_dpop_proof"/);
  const bearer = await fetch(`${f.url}${path}`, { headers: { Authorization: `Bearer ${admin}` } });
  assert.equal(bearer.status, 401, 'a bound token is no bearer token on the management API either');
});

test('a DPoP call with a cached credential costs no Redis round trip more than a bearer call', async () => {
  const bound = await plantToken(key.jkt);
  const plain = await plantToken(null);
  await mcp(bound, { DPoP: await proof(bound) });
  await post(f.url, `/mcp/${project}`, call('svc_help'), { Authorization: `Bearer ${plain}` });
  const commands = async () => {
    const text = await (await fetch(`${f.url}/metrics`)).text();
    return Number(/^svc_gateway_redis_commands_total (\d+)/m.exec(text)?.[1]);
  };
  const N = 5;
  const before1 = await commands();
  for (let i = 0; i < N; i++) await post(f.url, `/mcp/${project}`, call('svc_help'), { Authorization: `Bearer ${plain}` });
  const bearerCost = (await commands()) - before1;
  const before2 = await commands();
  for (let i = 0; i < N; i++) assert.equal((await mcp(bound, { DPoP: await proof(bound) })).status, 200);
  const dpopCost = (await commands()) - before2;
  assert.equal(dpopCost, bearerCost, `${N} DPoP calls sent ${dpopCost} commands, ${N} bearer calls ${bearerCost}`);
});

test('a browser client may send the DPoP header (CORS preflight)', async () => {
  const res = await fetch(`${f.url}/mcp/${project}`, {
    method: 'OPTIONS',
    headers: {
      Origin: f.url,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization, dpop, content-type',
    },
  });
  assert.equal(res.status, 204);
  assert.ok((res.headers.get('access-control-allow-headers') ?? '').split(', ').includes('dpop'));
});

test('the protected resource metadata advertises DPoP, not required', async () => {
  const res = await fetch(`${f.url}/.well-known/oauth-protected-resource/mcp/${project}`);
  const doc = (await res.json()) as Record<string, unknown>;
  assert.equal(doc['dpop_bound_access_tokens_required'], false);
  assert.deepEqual(doc['dpop_signing_alg_values_supported'], ['ES256', 'EdDSA', 'Ed25519', 'PS256', 'RS256']);
});
