import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CREDENTIAL_PREFIXES,
  displayPrefix,
  generateCredential,
  hashCredential,
  parseCredential,
  type CredentialKind,
} from '../src/index.ts';

const kinds = Object.keys(CREDENTIAL_PREFIXES) as CredentialKind[];

test('every generated credential parses back to its kind (longest prefix wins)', () => {
  for (const kind of kinds) {
    for (let i = 0; i < 50; i++) {
      const v = generateCredential(kind);
      assert.ok(v.startsWith(CREDENTIAL_PREFIXES[kind]));
      assert.equal(parseCredential(v)?.kind, kind, v);
    }
  }
});

test('a mistyped character, a wrong length or a foreign character is refused', () => {
  const v = generateCredential('project_key');
  const i = v.length - 10;
  const typo = v.slice(0, i) + (v[i] === 'a' ? 'b' : 'a') + v.slice(i + 1);
  assert.equal(parseCredential(typo), null);
  assert.equal(parseCredential(v + 'x'), null);
  assert.equal(parseCredential(v.slice(0, -1)), null);
  assert.equal(parseCredential(v.replace(/.$/, '-')), null);
  assert.equal(parseCredential('svc-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), null);
  assert.equal(parseCredential(''), null);
  assert.equal(parseCredential('x'.repeat(10_000)), null);
});

test('the secret part carries at least 128 random bits', () => {
  const v = generateCredential('user_key');
  const random = v.length - CREDENTIAL_PREFIXES.user_key.length - 6;
  assert.ok(random * Math.log2(62) >= 128);
  assert.notEqual(generateCredential('user_key'), v);
});

test('keyed hash: depends on the pepper, hex, stable', () => {
  const v = generateCredential('bot_key');
  assert.equal(hashCredential(v, 'p'.repeat(32)), hashCredential(v, 'p'.repeat(32)));
  assert.notEqual(hashCredential(v, 'p'.repeat(32)), hashCredential(v, 'q'.repeat(32)));
  assert.match(hashCredential(v, 'p'.repeat(32)), /^[0-9a-f]{64}$/);
});

test('the display prefix shows the kind and four characters only', () => {
  const v = generateCredential('bot_key');
  const d = displayPrefix(v);
  assert.ok(d.startsWith('svc-bot-') && d.endsWith('...'));
  assert.equal(d.length, 'svc-bot-'.length + 7);
});
