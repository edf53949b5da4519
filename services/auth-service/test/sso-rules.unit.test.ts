/**
 * The small rules of single sign-on (docs/auth-service.md "Single sign-on"): the role a groups
 * claim maps to, how many groups of a token are read, what a domain name is, and how a TXT proof
 * split into DNS chunks is read.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IDToken } from 'openid-client';
import { SSO_MAX_GROUPS_READ, domainProven, normalDomain, proofName, proofValue } from '@svc/sso';
import { groupsOf, roleFor } from '../src/sso/provision.ts';

const token = (groups: unknown) => ({ iss: 'i', sub: 's', aud: 'a', iat: 0, exp: 0, groups }) as IDToken;

test('the highest mapped role wins; no mapped group gives the default', () => {
  const settings = {
    defaultRole: 'VIEWER' as const,
    groupRoles: [
      { group: 'writers', role: 'EDITOR' as const },
      { group: 'admins', role: 'ADMIN' as const },
      { group: 'contractors', role: 'NONE' as const },
    ],
  };
  assert.equal(roleFor(settings, ['writers', 'admins']), 'ADMIN');
  assert.equal(roleFor(settings, ['contractors']), 'NONE');
  assert.equal(roleFor(settings, ['others']), 'VIEWER');
  assert.equal(roleFor(settings, []), 'VIEWER');
});

test(`groups: a list of strings, at most SSO_MAX_GROUPS_READ (${SSO_MAX_GROUPS_READ}) read`, () => {
  assert.deepEqual(groupsOf(token(['a', 7, 'b'])), ['a', 'b']);
  assert.deepEqual(groupsOf(token('admins')), []);
  const many = Array.from({ length: SSO_MAX_GROUPS_READ + 1 }, (_, i) => `g${i}`);
  assert.equal(groupsOf(token(many)).length, SSO_MAX_GROUPS_READ);
  assert.ok(!groupsOf(token(many)).includes(`g${SSO_MAX_GROUPS_READ}`));
});

test('a domain is a DNS name of two labels or more, lower-cased', () => {
  assert.equal(normalDomain(' Acme.EXAMPLE. '), 'acme.example');
  for (const bad of ['localhost', 'acme', '-acme.test', 'a..test', 'acme.test/x', 'ac me.test', '127.0.0.1', 'x'.repeat(64) + '.test']) {
    assert.equal(normalDomain(bad), null, bad);
  }
});

test('a TXT proof is read whole from its chunks; another value or a failed lookup is no proof', async () => {
  const value = proofValue('tok_123');
  const chunked = async (name: string) => (name === proofName('acme.test') ? [['v=spf1 -all'], [value.slice(0, 4), value.slice(4)]] : []);
  assert.equal(await domainProven(chunked, 'acme.test', 'tok_123'), true);
  assert.equal(await domainProven(chunked, 'acme.test', 'tok_999'), false);
  assert.equal(await domainProven(chunked, 'other.test', 'tok_123'), false);
  const failing = async (): Promise<string[][]> => {
    throw Object.assign(new Error('queryTxt ETIMEOUT'), { code: 'ETIMEOUT' });
  };
  assert.equal(await domainProven(failing, 'acme.test', 'tok_123'), false);
});
