/** The password policy and storage (docs/contract.md "Accounts"). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import bcrypt from 'bcrypt';
import { checkPassword, hashPassword, passwordMatches } from '../src/passwords.ts';

test('at least 12 and at most 256 characters, not a common password, no composition rules', () => {
  assert.throws(() => checkPassword('short pass'), /at least 12 characters/);
  assert.throws(() => checkPassword('x'.repeat(257)), /at most 256 characters/);
  assert.throws(() => checkPassword('password1234'), /one of the most common/);
  assert.throws(() => checkPassword('PASSWORD1234'), /one of the most common/, 'compared without case');
  for (const ok of ['correct horse battery staple', 'alllowercaseletters', 'é'.repeat(12), 'x'.repeat(256)]) checkPassword(ok);
});

test('every character counts, past the 72 bytes bcrypt reads; hashes from before still verify', async () => {
  const long = 'a'.repeat(100);
  const hash = await hashPassword(`${long}1`, 4);
  assert.ok(await passwordMatches(`${long}1`, hash));
  assert.equal(await passwordMatches(`${long}2`, hash), false, 'a difference after byte 72 is seen');
  const old = await bcrypt.hash('an older password', 4);
  assert.ok(await passwordMatches('an older password', old));
  assert.equal(await passwordMatches('another one', old), false);
  assert.equal(await passwordMatches('anything at all', ''), false, 'no password set never matches');
});
