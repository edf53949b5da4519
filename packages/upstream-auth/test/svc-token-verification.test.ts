/**
 * An upstream verifying svc's forwarded tokens (docs/upstream-servers.md "The forwarded token"),
 * against a real HTTP server publishing the issuer's JWK Set and tokens signed with jose: a token of
 * the profile is accepted once; one for another upstream, expired, replayed, of another type,
 * unsigned, from another issuer or living too long is refused as invalid_token; a rotated key is
 * fetched when its `kid` first appears; an unreachable key set is the verifier's failure, not the
 * token's.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import type { JWK, JWTPayload, CryptoKey } from 'jose';
import { testClock } from '@svc/testkit';
import { MAX_TOKEN_LIFETIME_SECONDS, SvcTokenError, SvcVerifierError, createSvcTokenVerifier, hasLevel } from '@svc/upstream-auth';
import type {
  RefusalReason,
  SvcAuthInfo,
  SvcLevel,
  SvcTokenExtra,
  SvcTokenVerifier,
  SvcTokenVerifierOptions,
  VerifierFailure,
} from '@svc/upstream-auth';

const AUDIENCE = 'http://127.0.0.1:5001/mcp';
const OTHER_AUDIENCE = 'http://127.0.0.1:5002/mcp';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

/** The issuer: its JWK Set is whatever `published` holds when asked; `fetches` counts the requests. */
const published: JWK[] = [];
let fetches = 0;
const jwksServer = createServer((req, res) => {
  fetches += 1;
  if (req.url !== '/.well-known/jwks.json') {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published }));
});
let issuer = '';
let current: SigningKey;

before(async () => {
  jwksServer.listen(0, '127.0.0.1');
  await once(jwksServer, 'listening');
  issuer = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}`;
  current = await signingKey('key-1');
  published.push(current.publicJwk);
});
after(() => {
  jwksServer.closeAllConnections();
  jwksServer.close();
});

const clock = testClock();
const seconds = () => Math.floor(clock.now() / 1000);

function verifier(options: Partial<SvcTokenVerifierOptions> = {}): SvcTokenVerifier {
  return createSvcTokenVerifier({ issuer, audience: AUDIENCE, now: clock.now, ...options });
}

/** A token of the profile, with `changes` over its claims and header. */
async function token(
  changes: { claims?: Partial<JWTPayload>; header?: Record<string, unknown>; key?: SigningKey; lifetime?: number } = {},
): Promise<string> {
  const key = changes.key ?? current;
  const iat = seconds();
  const claims: JWTPayload = {
    iss: issuer,
    aud: AUDIENCE,
    sub: 'user:u_123',
    client_id: 'svc-key:k_456',
    scope: 'svc:editor',
    svc: { project: 'notes', workspace: 'acme', level: 'EDITOR', tool: 'write_note', upstream: 'notes-server' },
    jti: crypto.randomUUID(),
    iat,
    exp: iat + (changes.lifetime ?? 60),
    ...changes.claims,
  };
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.kid, ...changes.header }).sign(key.privateKey);
}

/** Whether `error` is the verifier failing for `failure` (a server error, not a refused token). */
const verifierFailed = (failure: VerifierFailure) => (error: unknown) => error instanceof SvcVerifierError && error.failure === failure;

async function refusal(promise: Promise<unknown>): Promise<RefusalReason> {
  const error = await promise.then(
    () => assert.fail('the token was accepted'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof SvcTokenError, `refused as invalid_token, got ${String(error)}`);
  assert.equal(error.name, 'InvalidTokenError');
  assert.equal(error.errorCode, 'invalid_token');
  return error.reason;
}

test('a token of the profile is accepted, as the MCP SDK AuthInfo', async () => {
  const jwt = await token();
  const info: SvcAuthInfo = await verifier().verifyAccessToken(jwt);
  assert.equal(info.token, jwt);
  assert.equal(info.clientId, 'svc-key:k_456');
  assert.deepEqual(info.scopes, ['svc:editor']);
  assert.equal(info.expiresAt, seconds() + 60);
  assert.equal(info.resource.href, AUDIENCE);
  const expected: SvcTokenExtra = {
    subject: 'user:u_123',
    project: 'notes',
    workspace: 'acme',
    level: 'EDITOR',
    tool: 'write_note',
    upstream: 'notes-server',
    jti: info.extra.jti,
  };
  assert.deepEqual(info.extra, expected);
  const held: SvcLevel[] = ['VIEWER', 'EDITOR', 'ADMIN'];
  assert.deepEqual(
    held.map((level) => hasLevel(info, level)),
    [true, true, false],
  );
  assert.ok(!hasLevel({ extra: { level: 'OWNER' } }, 'VIEWER') && !hasLevel(undefined, 'VIEWER'));
});

test('a token for another upstream is refused: replaying it elsewhere fails', async () => {
  const forOther = await token({ claims: { aud: OTHER_AUDIENCE } });
  assert.ok(await createSvcTokenVerifier({ issuer, audience: OTHER_AUDIENCE, now: clock.now }).verifyAccessToken(forOther));
  assert.equal(await refusal(verifier().verifyAccessToken(forOther)), 'audience');
  // The audience is compared exactly: no trailing-slash or case folding, no list of audiences.
  assert.equal(await refusal(verifier().verifyAccessToken(await token({ claims: { aud: `${AUDIENCE}/` } }))), 'audience');
  assert.equal(await refusal(verifier().verifyAccessToken(await token({ claims: { aud: [AUDIENCE, OTHER_AUDIENCE] } }))), 'audience');
});

test('an expired token is refused, within the clock tolerance it is not', async () => {
  const jwt = await token();
  const started = clock.now();
  clock.advance(63_000);
  assert.ok(await verifier().verifyAccessToken(jwt), 'expired 3 s ago, tolerance 5 s');
  clock.advance(3_000);
  assert.equal(await refusal(verifier().verifyAccessToken(jwt)), 'expired');
  assert.equal(await refusal(verifier({ clockToleranceSeconds: 0 }).verifyAccessToken(await token({ lifetime: 0 }))), 'expired');
  clock.set(started);
});

test('a jti is accepted once; replay allow accepts it again', async () => {
  const jwt = await token();
  const refusing = verifier();
  assert.ok(await refusing.verifyAccessToken(jwt));
  assert.equal(await refusal(refusing.verifyAccessToken(jwt)), 'replayed');
  const allowing = verifier({ replay: 'allow' });
  assert.ok(await allowing.verifyAccessToken(jwt));
  assert.ok(await allowing.verifyAccessToken(jwt));
});

test('a refused token is not remembered: the replay cache holds only accepted jtis', async () => {
  const v = verifier();
  const jti = crypto.randomUUID();
  await refusal(v.verifyAccessToken(await token({ claims: { jti, aud: OTHER_AUDIENCE } })));
  assert.ok(await v.verifyAccessToken(await token({ claims: { jti } })));
});

test('the replay cache is bounded: full of live tokens it fails closed, and frees entries as they expire', async () => {
  const started = clock.now();
  const v = verifier({ replayCacheSize: 2 });
  await v.verifyAccessToken(await token());
  await v.verifyAccessToken(await token());
  const third = await token();
  await assert.rejects(v.verifyAccessToken(third), verifierFailed('replay_cache_full'));
  clock.advance(70_000);
  assert.ok(await v.verifyAccessToken(await token()));
  clock.set(started);
});

test('the header must be at+jwt, ES256 and name a key', async () => {
  assert.equal(await refusal(verifier().verifyAccessToken(await token({ header: { typ: 'JWT' } }))), 'type');
  assert.equal(await refusal(verifier().verifyAccessToken(await token({ header: { typ: undefined } }))), 'type');
  assert.ok(await verifier().verifyAccessToken(await token({ header: { typ: 'application/at+jwt' } })));
  assert.equal(await refusal(verifier().verifyAccessToken(await token({ header: { kid: undefined } }))), 'malformed');
  // alg none (RFC 7519 §6): an unsecured JWT carrying valid claims.
  const [, payload] = (await token()).split('.');
  const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: 'key-1' })).toString('base64url')}.${payload}.`;
  assert.equal(await refusal(verifier().verifyAccessToken(unsigned)), 'algorithm');
  const hs256 = await new SignJWT({ iss: issuer, aud: AUDIENCE })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: 'key-1' })
    .sign(new TextEncoder().encode('a shared secret of thirty-two bytes!'));
  assert.equal(await refusal(verifier().verifyAccessToken(hs256)), 'algorithm');
  for (const junk of ['', 'not.a.jwt', 'a'.repeat(10_000)]) {
    assert.equal(await refusal(verifier().verifyAccessToken(junk)), 'malformed');
  }
});

test('a token from another issuer, or signed by a key the issuer does not publish, is refused', async () => {
  assert.equal(await refusal(verifier().verifyAccessToken(await token({ claims: { iss: 'http://127.0.0.1:1' } }))), 'issuer');
  const impostor = await signingKey('key-1');
  assert.equal(await refusal(verifier().verifyAccessToken(await token({ key: impostor }))), 'signature');
  const unknown = await signingKey('key-unknown');
  assert.equal(await refusal(verifier({ jwksCooldownSeconds: 0 }).verifyAccessToken(await token({ key: unknown }))), 'unknown_key');
});

test('a lifetime over 300 s is refused, 300 s is accepted; an iat in the future is refused', async () => {
  assert.equal(await refusal(verifier().verifyAccessToken(await token({ lifetime: MAX_TOKEN_LIFETIME_SECONDS + 1 }))), 'lifetime');
  assert.ok(await verifier().verifyAccessToken(await token({ lifetime: MAX_TOKEN_LIFETIME_SECONDS })));
  const iat = seconds() + 60;
  assert.equal(await refusal(verifier().verifyAccessToken(await token({ claims: { iat, exp: iat + 60 } }))), 'not_yet_valid');
});

test('claims outside the profile are refused', async () => {
  const svc = { project: 'notes', workspace: 'acme', level: 'EDITOR', tool: 'write_note', upstream: 'notes-server' };
  const cases: Partial<JWTPayload>[] = [
    { sub: 'u_123' },
    { sub: 'robot:1' },
    { client_id: '' },
    { scope: 'svc:admin' },
    { scope: 'svc:editor svc:viewer' },
    { scope: 'openid' },
    { svc: 'notes' },
    { svc: { ...svc, level: 'OWNER' } },
    { svc: { ...svc, project: undefined } },
    { svc: { ...svc, upstream: 3 } },
    { svc: { ...svc, tool: '' } },
    { jti: undefined },
  ];
  for (const claims of cases) {
    const reason = await refusal(verifier().verifyAccessToken(await token({ claims })));
    assert.equal(reason, 'claims', JSON.stringify(claims));
  }
  // A request that calls no tool (initialize, tools/list) carries no tool; other scopes may come along.
  const info = await verifier().verifyAccessToken(
    await token({ claims: { svc: { ...svc, tool: undefined }, scope: 'openid svc:editor' } }),
  );
  assert.equal(info.extra.tool, undefined);
});

test('a rotated key is fetched when its kid first appears; a known kid fetches nothing', async () => {
  const v = verifier({ jwksCooldownSeconds: 0 });
  assert.ok(await v.verifyAccessToken(await token()));
  const before = fetches;
  assert.ok(await v.verifyAccessToken(await token()));
  assert.equal(fetches, before, 'the cached key set served the known kid');
  const next = await signingKey('key-2');
  published.push(next.publicJwk);
  assert.ok(await v.verifyAccessToken(await token({ key: next })));
  assert.equal(fetches, before + 1, 'one fetch for the new kid');
  published.splice(0, published.length, next.publicJwk);
  current = next;
});

test('an unreachable key set is the verifier failing (a server error), not an invalid token', async () => {
  const v = createSvcTokenVerifier({ issuer, audience: AUDIENCE, jwksUrl: `${issuer}/missing/jwks.json`, now: clock.now });
  await assert.rejects(
    v.verifyAccessToken(await token()),
    (e: unknown) => e instanceof SvcVerifierError && e.failure === 'jwks_unavailable',
  );
});

test('invalidTokenError builds the thrown error, as the MCP SDK middleware needs its own class', async () => {
  class SdkInvalidTokenError extends Error {}
  const v = verifier({ invalidTokenError: (refusal) => new SdkInvalidTokenError(refusal.message, { cause: refusal }) });
  const error = await v.verifyAccessToken(await token({ claims: { aud: OTHER_AUDIENCE } })).catch((e: unknown) => e);
  assert.ok(error instanceof SdkInvalidTokenError);
  assert.equal(error.message, 'The token was issued for another server');
  assert.ok(error.cause instanceof SvcTokenError && error.cause.reason === 'audience');
});

test('bad options are refused when the verifier is made', () => {
  assert.throws(() => createSvcTokenVerifier({ issuer: `${issuer}/`, audience: AUDIENCE }), /trailing slash/);
  assert.throws(() => createSvcTokenVerifier({ issuer: 'ftp://x', audience: AUDIENCE }), /issuer/);
  assert.throws(() => createSvcTokenVerifier({ issuer, audience: 'not a url' }), /audience/);
  assert.throws(() => createSvcTokenVerifier({ issuer, audience: AUDIENCE, replayCacheSize: 0 }), /replayCacheSize/);
});
