/**
 * The client profiles (docs/auth-service.md "Client profiles"): one table, which every branch on a
 * client reads rather than comparing client ids (that no module compares them is checked over the
 * whole repository by tests/repo/one-owner.unit.test.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLIENT_PROFILES, clientProfile, isFirstPartyClient, REGISTERED_CLIENT_PROFILE } from '../src/client-profiles.ts';

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
