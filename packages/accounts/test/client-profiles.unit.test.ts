/**
 * The client profiles (docs/auth-service.md "Client profiles"): one table, and every branch on a
 * client reads it rather than comparing client ids.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLIENT_PROFILES, clientProfile, isFirstPartyClient, REGISTERED_CLIENT_PROFILE } from '../src/client-profiles.ts';
import { sourceFiles } from './source-files.ts';

const OWNER = 'packages/accounts/src/client-profiles.ts';

test('no module outside the table branches on a profile id', async () => {
  const ids = Object.keys(CLIENT_PROFILES).join('|');
  const compared = new RegExp(`[=!]==?\\s*['"](${ids})['"]|['"](${ids})['"]\\s*[=!]==?`);
  const offenders = (await sourceFiles()).filter((f) => f.path !== OWNER && compared.test(f.text)).map((f) => f.path);
  assert.deepEqual(offenders, [], 'read clientProfile(clientId) of @svc/accounts instead');
});

test('every client has a profile: registered and metadata-document clients the unverified one', () => {
  assert.equal(clientProfile('svc-cli').issues, 'personal-key');
  assert.equal(clientProfile('svc-companion').surface, 'companion');
  assert.equal(clientProfile('create-svc').autoProvision, true);
  for (const id of ['https://app.example/client.json', 'dcr-123', 'constructor', '__proto__', 'toString', '', undefined, 5]) {
    assert.equal(isFirstPartyClient(id), false, String(id));
    assert.equal(clientProfile(id), REGISTERED_CLIENT_PROFILE, String(id));
  }
  assert.deepEqual(
    Object.entries(CLIENT_PROFILES)
      .filter(([, p]) => p.typedCode || p.autoProvision || p.issues === 'personal-key')
      .map(([id]) => id),
    ['svc-cli', 'create-svc'],
  );
});
