/**
 * The DPoP proof check on its own (RFC 9449 §4.3; docs/auth-service.md "DPoP"): every allowed
 * algorithm verifies, the thumbprint is RFC 7638's, htu is compared after RFC 3986 normalization,
 * and imported keys are bounded, in all and per workspace (DPOP_KEY_CACHE).
 */
import assert from 'node:assert/strict';
import { hash, randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { DPOP_SIGNING_ALGS } from '@svc/credentials';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createDpopProofCheck, DPOP_KEY_CACHE, jwkThumbprint, normalizedHtu } from '../src/auth/dpop-proof.ts';

const URL_ = 'https://svc.example/mcp/alpha';
const TOKEN = 'svc_at_example';

async function signed(alg: string) {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg.startsWith('Ed') ? { crv: 'Ed25519' } : {}) });
  const jwk = await exportJWK(publicKey);
  const proof = await new SignJWT({
    htm: 'POST',
    htu: URL_,
    iat: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    ath: hash('sha256', TOKEN, 'base64url'),
  })
    .setProtectedHeader({ alg, typ: 'dpop+jwt', jwk })
    .sign(privateKey);
  return { proof, jkt: await calculateJwkThumbprint(jwk) };
}

const input = (proof: string, boundJkt: string, tenant = 'acme') => ({
  tenant,
  header: proof,
  method: 'POST',
  url: URL_,
  accessToken: TOKEN,
  boundJkt,
  nowMs: Date.now(),
});

test('a proof signed with each allowed algorithm verifies; the thumbprint is RFC 7638 for EC, OKP and RSA', async () => {
  const check = createDpopProofCheck();
  for (const alg of DPOP_SIGNING_ALGS) {
    const { proof, jkt } = await signed(alg);
    const header = JSON.parse(Buffer.from(proof.split('.')[0]!, 'base64url').toString()) as { jwk: Record<string, unknown> };
    assert.equal(jwkThumbprint(header.jwk), jkt, `${alg} thumbprint`);
    assert.ok((await check(input(proof, jkt))).jti, alg);
  }
});

test(`imported keys are bounded in all and per workspace (${DPOP_KEY_CACHE.entries}, ${DPOP_KEY_CACHE.perTenant}): a workspace at its share drops its own oldest`, async () => {
  assert.deepEqual(DPOP_KEY_CACHE, { entries: 10_000, perTenant: 1_000 });
  const check = createDpopProofCheck({ entries: 4, perTenant: 2 });
  const victim = await signed('ES256');
  await check(input(victim.proof, victim.jkt, 'victim'));
  for (let i = 0; i < 5; i++) {
    const { proof, jkt } = await signed('ES256');
    await check(input(proof, jkt, 'churner'));
  }
  assert.equal(check.keysHeld('churner'), 2, 'the churning workspace keeps its share only');
  assert.equal(check.keysHeld('victim'), 1, "another workspace's key stays");
  for (let i = 0; i < 3; i++) {
    const { proof, jkt } = await signed('ES256');
    await check(input(proof, jkt, `w${i}`));
  }
  assert.equal(check.keysHeld(), 4, 'in all, the oldest goes past the whole bound');
});

test('equivalent URLs normalize alike; others do not', () => {
  const base = 'https://svc.example/mcp/alpha';
  for (const same of [
    'HTTPS://SVC.example/mcp/alpha',
    'https://svc.example:443/mcp/alpha',
    'https://svc.example/mcp/./alpha',
    'https://svc.example/%6Dcp/alpha',
    'https://svc.example/mcp/alpha?x=1#frag',
  ])
    assert.equal(normalizedHtu(same), base, same);
  assert.equal(normalizedHtu('https://svc.example/mcp/a%2fb'), 'https://svc.example/mcp/a%2Fb');
  for (const other of ['https://svc.example/mcp/alpha/', 'http://svc.example/mcp/alpha', 'https://svc.example:8443/mcp/alpha'])
    assert.notEqual(normalizedHtu(other), base, other);
  for (const bad of ['', 'not a url', 'ftp://svc.example/mcp/alpha', 'javascript:alert(1)']) assert.equal(normalizedHtu(bad), null, bad);
});
