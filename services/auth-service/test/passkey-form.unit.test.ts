/**
 * The credential JSON a passkey form carries is read by the one bounded JSON reader
 * (docs/security.md "Bounds"): within its 8,192 characters it could nest thousands of levels.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JSON_BOUNDS } from '@svc/bounds';
import { credentialOf, MAX_CREDENTIAL_JSON_CHARS } from '../src/factors/passkey-form.ts';

const nest = (depth: number, open: string, close: string, inner = '0') => open.repeat(depth) + inner + close.repeat(depth);

test('a credential nested past the reader’s depth is refused naming the bound, in every mix of arrays and objects', () => {
  const depth = Math.floor((MAX_CREDENTIAL_JSON_CHARS - 100) / 6);
  for (const credential of [
    nest(depth, '[', ']'),
    nest(depth, '{"a":', '}'),
    `{"id":"a","rawId":"a","type":"public-key","response":{"clientDataJSON":"a"},"clientExtensionResults":${nest(JSON_BOUNDS.maxDepth, '{"x":', '}')}}`,
  ]) {
    const r = credentialOf({ credential }, 'assertion');
    assert.ok('problem' in r && /nested more than 64 levels/.test(r.problem), JSON.stringify(r).slice(0, 200));
  }
});

test('a credential within the bounds is read; broken JSON is named as such', () => {
  const ok = credentialOf(
    {
      credential:
        '{"id":"a","rawId":"a","type":"public-key","response":{"clientDataJSON":"a","authenticatorData":"b","signature":"c"},"clientExtensionResults":{}}',
    },
    'assertion',
  );
  assert.ok('credential' in ok, JSON.stringify(ok));
  const broken = credentialOf({ credential: '{"id":' }, 'assertion');
  assert.deepEqual(broken, { problem: 'The field "credential" is not JSON.' });
});
