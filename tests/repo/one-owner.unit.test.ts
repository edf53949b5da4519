/**
 * Concepts with one owning module, checked over every service's and package's sources: no module
 * but the client-profile table branches on a client id (docs/auth-service.md "Client profiles"),
 * and no module but the record codec parses an oidc-provider record (docs/redis-schema.md
 * "auth-service (oidc-provider)"), and no auth-service module but the refusal families' writers
 * sets an answer's status (docs/errors.md "Three families, one table"). The owners' own behaviour is tested beside them, in
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

test('no auth-service module sets a refusal status but the writers of the refusal families', async () => {
  // The writers: a page (render, by its PageRefusal), an OAuth error (oauthError / sendOAuthError),
  // and the probes, whose 503 is the answer itself (docs/errors.md).
  const writers = new Set([
    'services/auth-service/src/ui/html.ts',
    'services/auth-service/src/http/oauth-error.ts',
    'services/auth-service/src/http/health.ts',
  ]);
  const sets = /\.status\(\s*[45]|\.sendStatus\(|\bstatus:\s*[45]\d\d\b|ctx\.status\s*=\s*[45]/;
  const offenders = (await sourceFiles())
    .filter((f) => f.path.startsWith('services/auth-service/') && !writers.has(f.path) && sets.test(f.text))
    .map((f) => f.path);
  assert.deepEqual(offenders, [], 'name the refusal (a PageRefusal or an OAuthRefusal of @svc/errors) instead of a status');
});
