/**
 * Metadata choices (docs/auth-service.md "Metadata choices"; OpenID Connect RP Metadata Choices 1.0
 * §3): the method svc chooses for every combination of what a document offers and where its keys
 * are, generated, against the rule written once here as a table of outcomes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseAuthMethod, normaliseMetadataDocument } from '../src/oauth/cimd-document.ts';

const allowed = (host: string) => host === 'client.example' || host === 'keys.example';
const OFFERS: (string[] | undefined)[] = [
  undefined,
  ['none'],
  ['private_key_jwt'],
  ['none', 'private_key_jwt'],
  ['private_key_jwt', 'none'],
  ['client_secret_basic'],
  ['client_secret_post', 'none'],
];
const SINGLE: (string | undefined)[] = [undefined, 'none', 'private_key_jwt', 'client_secret_basic'];
const KEYS: Record<string, Record<string, unknown>> = {
  none: {},
  allowed: { jwks_uri: 'https://keys.example/jwks.json' },
  elsewhere: { jwks_uri: 'https://other.example/jwks.json' },
  plain: { jwks_uri: 'http://keys.example/jwks.json' },
  inline: { jwks: { keys: [] } },
};

/** The rule: private_key_jwt when offered with usable keys, else none when offered, else nothing. */
function expected(offer: string[] | undefined, single: string | undefined, keys: string): string | null {
  const offered = offer ?? [single ?? 'none'];
  if (offered.includes('private_key_jwt') && (keys === 'allowed' || keys === 'inline')) return 'private_key_jwt';
  return offered.includes('none') ? 'none' : null;
}

test('the method chosen, for every offer, single method and place of the keys', () => {
  let cases = 0;
  for (const offer of OFFERS)
    for (const single of SINGLE)
      for (const [where, keys] of Object.entries(KEYS)) {
        const doc = {
          client_id: 'https://client.example/c.json',
          ...(offer ? { token_endpoint_auth_methods_supported: offer } : {}),
          ...(single ? { token_endpoint_auth_method: single } : {}),
          ...keys,
        };
        const label = JSON.stringify({ offer, single, where });
        const want = expected(offer, single, where);
        assert.equal(chooseAuthMethod(doc, allowed), want, label);
        const out = normaliseMetadataDocument(doc, allowed);
        assert.equal('token_endpoint_auth_methods_supported' in out, false, `${label}: the plural field is not handed on`);
        if (want) assert.equal(out['token_endpoint_auth_method'], want, label);
        else {
          // Nothing usable: the library refuses it, for a method it does not support or for missing keys.
          const method = String(out['token_endpoint_auth_method'] ?? 'client_secret_basic');
          const keyless = method === 'private_key_jwt' && out['jwks_uri'] === undefined && out['jwks'] === undefined;
          assert.ok(method !== 'none' && (method !== 'private_key_jwt' || keyless), label);
        }
        if (where === 'elsewhere' || where === 'plain')
          assert.equal(out['jwks_uri'], undefined, `${label}: keys svc may not fetch are dropped`);
        cases++;
      }
  assert.equal(cases, OFFERS.length * SINGLE.length * Object.keys(KEYS).length);
});

test('the assertion algorithm is chosen by svc from the offered list; a public client gets none', () => {
  const base = {
    client_id: 'https://client.example/c.json',
    jwks_uri: 'https://keys.example/j',
    token_endpoint_auth_methods_supported: ['private_key_jwt', 'none'],
  };
  const pick = (algs: string[]) =>
    normaliseMetadataDocument({ ...base, token_endpoint_auth_signing_alg_values_supported: algs }, allowed)[
      'token_endpoint_auth_signing_alg'
    ];
  assert.equal(pick(['RS256', 'ES256']), 'ES256');
  assert.equal(pick(['RS256']), 'RS256');
  assert.equal(pick(['HS256']), undefined, 'a symmetric algorithm is never chosen');
  const publicClient = normaliseMetadataDocument(
    {
      client_id: base.client_id,
      token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
      token_endpoint_auth_signing_alg: 'RS256',
    },
    allowed,
  );
  assert.deepEqual([publicClient['token_endpoint_auth_method'], publicClient['token_endpoint_auth_signing_alg']], ['none', undefined]);
});
