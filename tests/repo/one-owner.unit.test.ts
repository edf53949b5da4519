/**
 * Concepts with one owning module, checked over every service's and package's sources: no module
 * but the client-profile table branches on a client id (docs/auth-service.md "Client profiles"),
 * and no module but the record codec parses an oidc-provider record (docs/redis-schema.md
 * "auth-service (oidc-provider)"). The owners' own behaviour is tested beside them, in
 * packages/accounts/test.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLIENT_PROFILES } from '@svc/accounts';
import { sourceFiles } from './source-files.ts';

test('no module outside the client-profile table branches on a profile id', async () => {
  const owner = 'packages/accounts/src/client-profiles.ts';
  const ids = Object.keys(CLIENT_PROFILES).join('|');
  const compared = new RegExp(`[=!]==?\\s*['"](${ids})['"]|['"](${ids})['"]\\s*[=!]==?`);
  const offenders = (await sourceFiles()).filter((f) => f.path !== owner && compared.test(f.text)).map((f) => f.path);
  assert.deepEqual(offenders, [], 'read clientProfile(clientId) of @svc/accounts instead');
});

test('no module but the codec parses an oidc-provider record', async () => {
  // The owner: the one module that reads a record's `payload` field and parses it.
  const owner = 'packages/accounts/src/oidc-records.ts';
  // What builds a record's key: a file using one of these reaches the records themselves.
  const recordKeys = /\boidcRecordKey(ByDigest)?\(|\bOK\.model(ByDigest)?\(/;
  const offenders: string[] = [];
  for (const { path, text } of await sourceFiles()) {
    if (path === owner) continue;
    if (/['"]payload['"]/.test(text)) offenders.push(`${path}: reads the payload field`);
    else if (recordKeys.test(text) && /JSON\.parse\(/.test(text)) offenders.push(`${path}: parses JSON next to a record key`);
  }
  assert.deepEqual(offenders, [], 'read records through oidcRecords / readOidcRecord of @svc/accounts');
});
