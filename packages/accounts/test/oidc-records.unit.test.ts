/**
 * The record codec of oidc-provider's storage (docs/redis-schema.md "auth-service (oidc-provider)"):
 * it keeps only fields of the expected type, reads a damaged record as absent, and is the only
 * module that parses a record.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAccessToken, parseGrant, parseOidcPayload, parseSession } from '../src/oidc-records.ts';
import { sourceFiles } from './source-files.ts';

/** The owner: the one module that reads a record's `payload` field and parses it. */
const OWNER = 'packages/accounts/src/oidc-records.ts';
/** What builds a record's key: a file using one of these reaches the records themselves. */
const RECORD_KEYS = /\boidcRecordKey(ByDigest)?\(|\bOK\.model(ByDigest)?\(/;

test('no module but the codec parses an oidc-provider record', async () => {
  const offenders: string[] = [];
  for (const { path, text } of await sourceFiles()) {
    if (path === OWNER) continue;
    if (/['"]payload['"]/.test(text)) offenders.push(`${path}: reads the payload field`);
    else if (RECORD_KEYS.test(text) && /JSON\.parse\(/.test(text)) offenders.push(`${path}: parses JSON next to a record key`);
  }
  assert.deepEqual(offenders, [], 'read records through oidcRecords / readOidcRecord of @svc/accounts');
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
