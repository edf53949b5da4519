/**
 * The record codec of oidc-provider's storage (docs/redis-schema.md "auth-service (oidc-provider)"):
 * it keeps only fields of the expected type and reads a damaged record as absent. That it is the
 * only module that parses a record is checked over the whole repository by
 * tests/repo/one-owner.unit.test.ts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { oidcDigest, parseAccessToken, parseGrant, parseOidcPayload, parseSession } from '../src/oidc-records.ts';

test('a record id digest is the SHA-256 of the id, however many ids came before (the memo of recent ones)', () => {
  const sha256 = (id: string) => createHash('sha256').update(id).digest('base64url');
  // Runs of ids long enough to fill the memo several times over, each id asked again at random.
  fc.assert(
    fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 160 }), { minLength: 1, maxLength: 1_500 }), fc.nat(), (ids, seed) => {
      for (const [i, id] of ids.entries()) {
        assert.equal(oidcDigest(id), sha256(id));
        const again = ids[(seed + i * 7) % (i + 1)]!;
        assert.equal(oidcDigest(again), sha256(again));
      }
    }),
    { numRuns: 30 },
  );
});

test('a payload that is not a JSON object reads as absent', () => {
  for (const text of ['', 'not json', '[]', '"x"', '1', 'null', '{"a":']) assert.equal(parseOidcPayload(text), null, text);
  assert.deepEqual(parseOidcPayload('{"a":1}'), { a: 1 });
});

test('an access token needs its kind, person, client, grant and a numeric expiry', () => {
  const good = { kind: 'AccessToken', accountId: 'u', clientId: 'c', grantId: 'g', exp: 10, aud: 'https://x/mcp/p', scope: 'mcp' };
  assert.deepEqual(parseAccessToken(good), good);
  for (const [field, value] of [
    ['kind', 'RefreshToken'],
    ['accountId', ''],
    ['clientId', 5],
    ['grantId', undefined],
    ['exp', '10'],
  ] as const)
    assert.equal(parseAccessToken({ ...good, [field]: value }), null, `${field} = ${String(value)}`);
  // Optional fields of the wrong type are dropped, never passed on as another type.
  const odd = parseAccessToken({ ...good, aud: [1], scope: 7, expiresWithSession: 'yes', jkt: {} });
  assert.deepEqual(odd, { kind: 'AccessToken', accountId: 'u', clientId: 'c', grantId: 'g', exp: 10 });
});

test('a grant keeps only string scopes, in a map without a prototype', () => {
  const g = parseGrant({ accountId: 'u', resources: { 'https://x/mcp/a': 'mcp:read', 'https://x/mcp/b': 3, constructor: 'x' } });
  assert.deepEqual({ ...g.resources }, { 'https://x/mcp/a': 'mcp:read', constructor: 'x' });
  assert.equal(parseGrant({ resources: {} }).resources['toString'], undefined);
  assert.deepEqual(parseGrant({ resources: 'x' }).resources, Object.create(null));
  assert.deepEqual(parseSession({ uid: 1, accountId: 'u' }), { accountId: 'u' });
});
