/**
 * A delegated access token's claims in the record codec (RFC 8693 §4.1 `act`; docs/auth-service.md
 * "Delegation (token exchange)"): the chain written is the chain read, nested as the RFC shows, at
 * most DELEGATION_MAX_DEPTH actors after the first client; a record whose delegation cannot be read
 * whole is absent, never an undelegated token.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { actClaim, actorChain, DELEGATION_MAX_DEPTH, delegationClaims, parseAccessToken } from '../src/oidc-records.ts';

const clientId = fc.string({ minLength: 1, maxLength: 40 });

test('a chain of up to DELEGATION_MAX_DEPTH + 1 clients reads back as written; a longer one does not', () => {
  fc.assert(
    fc.property(fc.array(clientId, { minLength: 1, maxLength: DELEGATION_MAX_DEPTH + 1 }), (chain) => {
      assert.deepEqual(actorChain(actClaim(chain)), chain);
    }),
  );
  assert.deepEqual(actClaim(['b', 'a']), { sub: 'b', act: { sub: 'a' } });
  assert.equal(actorChain(actClaim(['e', 'd', 'c', 'b', 'a'])), null);
  for (const bad of [
    undefined,
    null,
    'a',
    [],
    {},
    { sub: '' },
    { sub: 1 },
    { sub: 'a', act: 'b' },
    { sub: 'a', act: {} },
    { sub: 'a', iss: 'x' },
  ])
    assert.equal(actorChain(bad), null, JSON.stringify(bad));
});

test('an access token carries its delegation whole, with its own client as the current actor, or is absent', () => {
  const base = { kind: 'AccessToken', accountId: 'u', clientId: 'b', grantId: 'g', exp: 10, aud: 'https://x/mcp/p' };
  assert.deepEqual(parseAccessToken({ ...base, extra: delegationClaims(['b', 'a'], 'digest') }), {
    ...base,
    chain: ['b', 'a'],
    parent: 'digest',
  });
  assert.deepEqual(parseAccessToken({ ...base, extra: {} }), base);
  for (const extra of [
    { act: { sub: 'b', act: { sub: 'a' } } },
    { svc_parent: 'digest' },
    { act: { sub: 'b', act: 'a' }, svc_parent: 'digest' },
    { act: { sub: 'b', act: { sub: 'a' } }, svc_parent: 7 },
    delegationClaims(['c', 'a'], 'digest'),
  ])
    assert.equal(parseAccessToken({ ...base, extra }), null, JSON.stringify(extra));
});
