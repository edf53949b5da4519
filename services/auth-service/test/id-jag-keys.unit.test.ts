/**
 * An issuer's JWKS URL is fetched once per ID_JAG_JWKS_CACHE_SECONDS, at most ID_JAG_JWKS_CACHE
 * URLs are kept (in all, and per workspace), and a failing URL is a refusal, remembered for ID_JAG_JWKS_FAILURE_SECONDS
 * (docs/auth-service.md "Enterprise-managed authorization").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exportJWK, generateKeyPair } from 'jose';
import { CimdFetchRefused } from '@svc/bounds/guarded-fetch.ts';
import {
  createIssuerKeys,
  ID_JAG_JWKS_CACHE,
  ID_JAG_JWKS_CACHE_SECONDS,
  ID_JAG_JWKS_FAILURE_SECONDS,
  IssuerKeysUnavailable,
} from '../src/oauth/id-jag-keys.ts';

const jwks = { keys: [{ ...(await exportJWK((await generateKeyPair('ES256')).publicKey)), kid: 'k' }] };

function counting() {
  const fetched: string[] = [];
  const fetch = async (url: string) => {
    fetched.push(url);
    return url.endsWith('/down') ? new Response('down', { status: 503 }) : Response.json(jwks);
  };
  return { fetched, fetch };
}

test('a JWKS URL is fetched again only after ID_JAG_JWKS_CACHE_SECONDS', async () => {
  let now = 0;
  const { fetched, fetch } = counting();
  const keys = createIssuerKeys(fetch, () => now);
  const issuer = { jwks: null, jwksUri: 'https://idp.example.com/jwks' };
  await keys(issuer);
  now += ID_JAG_JWKS_CACHE_SECONDS * 1000 - 1;
  await keys(issuer);
  assert.equal(fetched.length, 1);
  now += 1;
  await keys(issuer);
  assert.equal(fetched.length, 2);
});

test('at most ID_JAG_JWKS_CACHE.entries URLs are kept, the oldest out first', async () => {
  const { fetched, fetch } = counting();
  const keys = createIssuerKeys(fetch, () => 0);
  const uri = (i: number) => ({ jwks: null, jwksUri: `https://idp${i}.example.com/jwks` });
  for (let i = 0; i <= ID_JAG_JWKS_CACHE.entries; i++) await keys(uri(i));
  assert.equal(fetched.length, ID_JAG_JWKS_CACHE.entries + 1);
  await keys(uri(ID_JAG_JWKS_CACHE.entries)); // kept
  await keys(uri(1)); // kept
  assert.equal(fetched.length, ID_JAG_JWKS_CACHE.entries + 1);
  await keys(uri(0)); // the oldest, dropped
  assert.equal(fetched.length, ID_JAG_JWKS_CACHE.entries + 2);
});

test("a workspace naming URL after URL keeps to its share: another workspace's keys stay kept", async () => {
  const { fetched, fetch } = counting();
  const keys = createIssuerKeys(fetch, () => 0);
  const victim = { jwks: null, jwksUri: 'https://idp.victim.example/jwks' };
  await keys(victim, 'victim');
  for (let i = 0; i < 5 * ID_JAG_JWKS_CACHE.perTenant; i++)
    await keys({ jwks: null, jwksUri: `https://idp${i}.churn.example/jwks` }, 'churner');
  const before = fetched.length;
  await keys(victim, 'victim');
  assert.equal(fetched.length, before, "the victim's keys were not fetched again");
  await keys({ jwks: null, jwksUri: 'https://idp0.churn.example/jwks' }, 'churner');
  assert.equal(fetched.length, before + 1, "the churning workspace's oldest went");
});

test('a failing JWKS URL is IssuerKeysUnavailable, and not fetched again for ID_JAG_JWKS_FAILURE_SECONDS', async () => {
  let now = 0;
  const { fetched, fetch } = counting();
  const keys = createIssuerKeys(fetch, () => now);
  const issuer = { jwks: null, jwksUri: 'https://idp.example.com/down' };
  for (let i = 0; i < 5; i++) await assert.rejects(keys(issuer), IssuerKeysUnavailable);
  assert.equal(fetched.length, 1, 'one fetch for five assertions');
  now += ID_JAG_JWKS_FAILURE_SECONDS * 1000 - 1;
  await assert.rejects(keys(issuer), IssuerKeysUnavailable);
  assert.equal(fetched.length, 1);
  now += 1;
  await assert.rejects(keys(issuer), IssuerKeysUnavailable);
  assert.equal(fetched.length, 2, 'asked again once the failure is forgotten');
});

test("a refusal for the workspace's full share of the outbound pools is not remembered; the fetch names the workspace", async () => {
  const tenants: (string | undefined)[] = [];
  let busy = true;
  const keys = createIssuerKeys(async (_url, init) => {
    tenants.push(init?.tenant);
    if (busy) throw new CimdFetchRefused('too many name lookups', 'refused for now', 'busy');
    return Response.json(jwks);
  });
  const issuer = { jwks: null, jwksUri: 'https://idp.example.com/jwks' };
  await assert.rejects(keys(issuer, 'acme'), IssuerKeysUnavailable);
  busy = false;
  await keys(issuer, 'acme');
  assert.deepEqual(tenants, ['acme', 'acme']);
});
