/**
 * Every single-use value is claimed with one atomic write (docs/security.md "Single-use values").
 * Round after round, N requests sent at once carry one value, and it is used once: a client
 * assertion (RFC 7523 §3), a DPoP proof at the token endpoint (RFC 9449 §11.1), an authorization
 * code (RFC 6749 §4.1.2), a device code (RFC 8628 §3.4): one answer carries a token, every other is
 * an OAuth error, never a 5xx; a code used twice, even at once, revokes its grant (RFC 6749 §4.1.2). A refresh token is exchanged once too; its concurrent requests all
 * get the one pair that exchange made (docs/security.md "Refresh tokens"). Below HTTP, the
 * provider's replay check and every consumable model's consume let one caller of N through.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { errors } from 'oidc-provider';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { oidcDigest, type PublicJwk } from '@svc/accounts';
import { OK } from '../src/store/redis-keys.ts';
import { DEVICE_GRANT, mintGrant, mintRefreshToken, newProject, postForm, postJson, startAuth, type AuthFixture } from './support.ts';

/** Requests sent at once with one value. */
const N = 8;
/** Races per kind of value: the old find-then-write lost most rounds, so a few catch it. */
const ROUNDS = 6;
const REDIRECT = 'http://127.0.0.1:45997/cb';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

let f: AuthFixture;
let tokenUrl: string;

before(async () => {
  f = await startAuth();
  tokenUrl = `${f.url}/api/oauth/token`;
});
after(async () => {
  await f.close();
});

type Answer = Awaited<ReturnType<typeof postForm>>;

/** Sends `N` requests at once. */
const race = (send: (i: number) => Promise<Answer>) => Promise.all(Array.from({ length: N }, (_, i) => send(i)));

/** One answer carries an access token; every other is the OAuth error `error` with a 4xx status. */
function assertOneToken(answers: Answer[], error: string, label: string): Answer {
  const issued = answers.filter((a) => a.status === 200);
  const summary = answers.map((a) => `${a.status} ${String(a.body['error'] ?? 'token')}`).join(', ');
  assert.equal(issued.length, 1, `${label}: one token, got ${summary}`);
  assert.equal(typeof issued[0]!.body['access_token'], 'string', label);
  for (const a of answers.filter((x) => x.status !== 200)) {
    assert.ok(a.status >= 400 && a.status < 500, `${label}: ${summary}`);
    assert.equal(a.body['error'], error, `${label}: ${summary}`);
  }
  return issued[0]!;
}

/**
 * RFC 6749 §4.1.2: a code used more than once revokes what it issued. After a race the Grant is
 * gone, and the winner's access token is gone or names no Grant (refused by the gateway and by
 * introspection), whichever of the winner's save and the loser's revocation came first.
 */
async function assertGrantRevoked(grantId: string, issued: Answer, label: string): Promise<void> {
  const p = f.service.provider;
  assert.equal(await p.Grant.find(grantId), undefined, `${label}: the grant is revoked`);
  const token = await p.AccessToken.find(String(issued.body['access_token']));
  assert.ok(!token || !(await p.Grant.find(String(token.grantId))), `${label}: the issued token is refused`);
}

interface Signer {
  key: CryptoKey;
  jwk: JWK;
}

async function newSigner(): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { key: privateKey, jwk: { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' } };
}

/** A service account allowed on a new project, whose OAuth client authenticates with `private_key_jwt`. */
async function serviceAccount(prefix: string): Promise<{ botId: string; resource: string; signer: Signer }> {
  const { user, slug, resource } = await newProject(f, prefix);
  const { bot } = await f.accounts.bots.create({ workspace: user.workspace, name: prefix });
  await f.accounts.bots.grant(bot.id, slug, 'VIEWER');
  const signer = await newSigner();
  await f.accounts.serviceAccountClients.setKeys(bot.id, { jwks: { keys: [signer.jwk as PublicJwk] } });
  return { botId: bot.id, resource, signer };
}

/** A client assertion (RFC 7523 §2.2) with a fresh `jti`, valid for a minute. */
async function clientAssertion(botId: string, signer: Signer): Promise<string> {
  return new SignJWT({ jti: randomUUID() })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer(botId)
    .setSubject(botId)
    .setAudience(f.url)
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(signer.key);
}

/** A DPoP proof (RFC 9449 §4.2) for a POST to the token endpoint. */
async function dpopProof(signer: Signer): Promise<string> {
  const { kid: _kid, alg: _alg, ...jwk } = signer.jwk;
  return new SignJWT({ htm: 'POST', htu: tokenUrl, jti: randomUUID() })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
    .setIssuedAt()
    .sign(signer.key);
}

const clientCredentials = (botId: string, resource: string, assertion: string, headers: Record<string, string> = {}) =>
  postForm(
    tokenUrl,
    { grant_type: 'client_credentials', client_id: botId, client_assertion_type: ASSERTION_TYPE, client_assertion: assertion, resource },
    headers,
  );

test('one client assertion sent N times at once buys one token (RFC 7523 §3: jti used once)', async () => {
  const { botId, resource, signer } = await serviceAccount('assertion');
  for (let round = 0; round < ROUNDS; round++) {
    const assertion = await clientAssertion(botId, signer);
    assertOneToken(await race(() => clientCredentials(botId, resource, assertion)), 'invalid_client', `round ${round}`);
  }
});

test('one DPoP proof sent N times at once to the token endpoint binds one token (RFC 9449 §11.1)', async () => {
  const { botId, resource, signer } = await serviceAccount('dpop');
  const holder = await newSigner();
  for (let round = 0; round < ROUNDS; round++) {
    const proof = await dpopProof(holder);
    // Each request authenticates with its own assertion: only the proof is shared.
    const assertions = await Promise.all(Array.from({ length: N }, () => clientAssertion(botId, signer)));
    const answers = await race((i) => clientCredentials(botId, resource, assertions[i]!, { dpop: proof }));
    const issued = assertOneToken(answers, 'invalid_grant', `round ${round}`);
    assert.equal(issued.body['token_type'], 'DPoP');
  }
});

test('an authorization code exchanged N times at once gives one token response, then its grant is revoked (RFC 6749 §4.1.2)', async () => {
  const reg = await postJson(`${f.url}/api/oauth/register`, { redirect_uris: [REDIRECT], client_name: 'single use' });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
  const clientId = String(reg.body['client_id']);
  for (let round = 0; round < ROUNDS; round++) {
    const { accountId, grantId, resource, client } = await mintGrant(f, 'code', clientId);
    const verifier = randomBytes(32).toString('base64url');
    const code = await new f.service.provider.AuthorizationCode({
      client,
      accountId,
      grantId,
      gty: 'authorization_code',
      redirectUri: REDIRECT,
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
      codeChallengeMethod: 'S256',
      scope: 'mcp',
      resource,
    }).save();
    const exchange = () =>
      postForm(tokenUrl, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: clientId });
    await assertGrantRevoked(grantId, assertOneToken(await race(exchange), 'invalid_grant', `round ${round}`), `round ${round}`);
  }
});

test('an approved device code exchanged N times at once gives one token response, then its grant is revoked (RFC 8628 §3.4)', async () => {
  const p = f.service.provider;
  for (let round = 0; round < ROUNDS; round++) {
    const started = await postForm(`${f.url}/api/oauth/device/code`, { client_id: 'svc-mcp' });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const deviceCode = String(started.body['device_code']);
    // The person's approval, as the consent page records it.
    const { accountId, grantId } = await mintGrant(f, 'device');
    const code = await p.DeviceCode.find(deviceCode);
    assert.ok(code, 'the device code is stored');
    Object.assign(code, { accountId, grantId, scope: 'mcp' });
    await code.save();
    const exchange = () => postForm(tokenUrl, { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: 'svc-mcp' });
    await assertGrantRevoked(grantId, assertOneToken(await race(exchange), 'invalid_grant', `round ${round}`), `round ${round}`);
  }
});

test('a refresh token presented N times at once is exchanged once: every answer is that one pair', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const { token } = await mintRefreshToken(f, 'rotate');
    const answers = await race(() => postForm(tokenUrl, { grant_type: 'refresh_token', refresh_token: token, client_id: 'svc-mcp' }));
    const pairs = new Set(
      answers.filter((a) => a.status === 200).map((a) => `${String(a.body['access_token'])} ${String(a.body['refresh_token'])}`),
    );
    const summary = answers.map((a) => `${a.status} ${String(a.body['error'] ?? 'pair')}`).join(', ');
    assert.equal(pairs.size, 1, `round ${round}: one pair, got ${summary}`);
    for (const a of answers)
      assert.ok(a.status === 200 || (a.status >= 400 && a.status < 500 && typeof a.body['error'] === 'string'), summary);
  }
});

test('the provider replay check lets one of N concurrent callers through, for every user of it', async () => {
  const p = f.service.provider;
  for (let round = 0; round < ROUNDS; round++) {
    const jti = randomUUID();
    const exp = Math.floor(Date.now() / 1000) + 60;
    const unique = await Promise.all(Array.from({ length: N }, () => p.ReplayDetection.unique('issuer', jti, exp)));
    assert.equal(unique.filter(Boolean).length, 1, `round ${round}: ${unique.join(', ')}`);
    // The claim then lasts the value's own window (the model's id: lib/models/replay_detection.js).
    const id = createHash('sha256').update(`issuer${jti}`).digest('base64url');
    const ttl = await f.client.ttl(OK.replay(oidcDigest(id)));
    assert.ok(ttl > 0 && ttl <= 60, `the claim lives ${ttl} s`);
  }
});

test('every consumable model is consumed once of N concurrent consumes; the others are refused with an OAuth error', async () => {
  const p = f.service.provider;
  const models = [
    { model: p.AuthorizationCode, error: errors.InvalidGrant },
    { model: p.DeviceCode, error: errors.InvalidGrant },
    { model: p.RefreshToken, error: errors.InvalidGrant },
    { model: p.BackchannelAuthenticationRequest, error: errors.InvalidGrant },
    { model: p.PushedAuthorizationRequest, error: errors.InvalidRequestUri },
  ];
  for (const { model, error } of models) {
    const now = Math.floor(Date.now() / 1000);
    let id = randomBytes(32).toString('base64url');
    // A refresh token's record is found only under one of our refresh token values.
    if (model === p.RefreshToken) id = (await mintRefreshToken(f, 'consume')).token;
    else await model.adapter.upsert(id, { iat: now, exp: now + 60, jti: id, kind: model.name }, 60);
    const settled = await Promise.allSettled(Array.from({ length: N }, () => model.adapter.consume(id)));
    assert.equal(settled.filter((s) => s.status === 'fulfilled').length, 1, model.name);
    for (const s of settled)
      if (s.status === 'rejected') {
        assert.ok(s.reason instanceof error, `${model.name}: ${String(s.reason)}`);
        assert.equal((s.reason as { status: number }).status, 400);
      }
    const stored = await model.adapter.find(id);
    assert.equal(typeof stored?.consumed, 'number', `${model.name} reads consumed`);
  }
});
