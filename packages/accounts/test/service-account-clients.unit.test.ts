/**
 * The bounds of a service account's OAuth client keys (docs/auth-service.md "Client credentials"):
 * each SERVICE_ACCOUNT_KEY_LIMITS value is the last one accepted, and private key material,
 * duplicate key ids and non-https JWKS URLs are refused with a message naming the problem.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { SERVICE_ACCOUNT_KEY_LIMITS, serviceAccountKeysProblem } from '../src/index.ts';

const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pub = (kid: string) => ({ ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256' });

test('an inline JWKS holds at most maxKeys keys', () => {
  const keys = Array.from({ length: SERVICE_ACCOUNT_KEY_LIMITS.maxKeys }, (_, i) => pub(`k${i}`));
  assert.equal(serviceAccountKeysProblem({ jwks: { keys } }), null);
  assert.match(serviceAccountKeysProblem({ jwks: { keys: [...keys, pub('one-more')] } }) ?? '', /at most 5 keys/);
});

test('an inline JWKS is at most maxJwksBytes of JSON', () => {
  const padded = { jwks: { keys: [pub('k1')], pad: 'x'.repeat(SERVICE_ACCOUNT_KEY_LIMITS.maxJwksBytes) } };
  assert.match(serviceAccountKeysProblem(padded) ?? '', /at most 8192 bytes/);
});

test('a kid is 1 to maxKidLength characters and appears once', () => {
  assert.equal(serviceAccountKeysProblem({ jwks: { keys: [pub('k'.repeat(SERVICE_ACCOUNT_KEY_LIMITS.maxKidLength))] } }), null);
  assert.match(serviceAccountKeysProblem({ jwks: { keys: [pub('k'.repeat(SERVICE_ACCOUNT_KEY_LIMITS.maxKidLength + 1))] } }) ?? '', /kid/);
  assert.match(serviceAccountKeysProblem({ jwks: { keys: [pub('a'), pub('a')] } }) ?? '', /appears twice/);
});

test('private or symmetric key material and keys that are not public keys are refused', () => {
  const priv = { ...privateKey.export({ format: 'jwk' }), kid: 'p' };
  assert.match(serviceAccountKeysProblem({ jwks: { keys: [priv] } }) ?? '', /private or symmetric/);
  assert.match(serviceAccountKeysProblem({ jwks: { keys: [{ kty: 'oct', kid: 's', k: 'c2VjcmV0' }] } }) ?? '', /private or symmetric/);
  assert.match(
    serviceAccountKeysProblem({ jwks: { keys: [{ kty: 'EC', kid: 'bad', crv: 'P-256', x: 'AA', y: 'AA' }] } }) ?? '',
    /not a valid public key/,
  );
});

test('a JWKS URL is https, at most maxJwksUriLength characters; jwks and jwks_uri are exclusive', () => {
  const base = 'https://ci.example/jwks?';
  assert.equal(serviceAccountKeysProblem({ jwksUri: base + 'a'.repeat(SERVICE_ACCOUNT_KEY_LIMITS.maxJwksUriLength - base.length) }), null);
  assert.match(
    serviceAccountKeysProblem({ jwksUri: base + 'a'.repeat(SERVICE_ACCOUNT_KEY_LIMITS.maxJwksUriLength - base.length + 1) }) ?? '',
    /at most 2048/,
  );
  assert.match(serviceAccountKeysProblem({ jwksUri: 'http://ci.example/jwks' }) ?? '', /https/);
  assert.match(serviceAccountKeysProblem({ jwksUri: 'https://ci.example/jwks', jwks: { keys: [pub('a')] } }) ?? '', /not both/);
});

test('a JWKS URL at a loopback, link-local, private or other special-use address is refused: the guarded fetch never reads one', () => {
  for (const host of [
    '127.0.0.1',
    '2130706433',
    '0x7f.1',
    '[::1]',
    '[::ffff:7f00:1]',
    '169.254.169.254',
    '[fe80::1]',
    '10.1.2.3',
    '192.168.0.9',
    'localhost',
    'keys.localhost.',
  ]) {
    assert.match(serviceAccountKeysProblem({ jwksUri: `https://${host}/jwks` }) ?? '', /special-use address/, host);
  }
  for (const host of ['ci.example', '93.184.215.14', '[2606:4700::1111]'])
    assert.equal(serviceAccountKeysProblem({ jwksUri: `https://${host}/jwks` }), null, host);
});
