/**
 * A URL whose fetch failed is refused again without a fetch for FETCH_FAILURE_MEMORY_MS
 * (packages/bounds/src/failure-memory.ts): a failing JWKS or metadata URL named by every request
 * costs one fetch, not one per request. A full share (`busy`) is not remembered; POSTs never are.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FETCH_FAILURE_MEMORY, FETCH_FAILURE_MEMORY_MS, rememberFailures } from '../src/failure-memory.ts';
import { CimdFetchRefused, type GuardedInit } from '../src/guarded-fetch.ts';

function counting(fail: (url: string) => Error | null) {
  const fetched: string[] = [];
  const fetch = async (input: string | URL | Request, _init?: GuardedInit) => {
    const url = String(input);
    fetched.push(url);
    const err = fail(url);
    if (err) throw err;
    return new Response('{}');
  };
  return { fetched, fetch };
}

test('a failed URL is refused without a fetch until FETCH_FAILURE_MEMORY_MS have passed; the tenant text is kept', async () => {
  let now = 0;
  const { fetched, fetch } = counting((url) =>
    url.includes('down') ? new CimdFetchRefused('down.example resolves to 10.0.0.1', 'refused: public', 'address') : null,
  );
  const remembering = rememberFailures(fetch, () => now);
  for (let i = 0; i < 10; i++) {
    await assert.rejects(remembering('https://down.example/jwks'), (err: unknown) => {
      assert.ok(err instanceof CimdFetchRefused);
      assert.equal(err.tenantMessage, 'refused: public');
      assert.equal(err.reason, 'address');
      return true;
    });
  }
  assert.equal(fetched.length, 1, 'one fetch for ten requests');
  assert.equal((await remembering('https://up.example/jwks')).status, 200, 'another URL is fetched');
  now += FETCH_FAILURE_MEMORY_MS;
  await assert.rejects(remembering('https://down.example/jwks'));
  assert.deepEqual(fetched, ['https://down.example/jwks', 'https://up.example/jwks', 'https://down.example/jwks']);
});

test('a busy refusal and a POST are not remembered; at most FETCH_FAILURE_MEMORY.entries URLs are', async () => {
  let busy = true;
  const { fetched, fetch } = counting((url) =>
    url.endsWith('/busy') && busy ? new CimdFetchRefused('share held', 'later', 'busy') : url.endsWith('/bad') ? new Error('reset') : null,
  );
  const remembering = rememberFailures(fetch, () => 0);
  await assert.rejects(remembering('https://a.example/busy'));
  busy = false;
  assert.equal((await remembering('https://a.example/busy')).status, 200);
  await assert.rejects(remembering('https://a.example/bad', { method: 'POST' }));
  await assert.rejects(remembering('https://a.example/bad', { method: 'POST' }));
  assert.equal(fetched.length, 4);
  for (let i = 0; i <= FETCH_FAILURE_MEMORY.entries; i++) await assert.rejects(remembering(`https://h${i}.example/bad`));
  const before = fetched.length;
  await assert.rejects(remembering('https://h0.example/bad'));
  assert.equal(fetched.length, before + 1, 'the oldest failure was forgotten');
  await assert.rejects(remembering(`https://h${FETCH_FAILURE_MEMORY.entries}.example/bad`));
  assert.equal(fetched.length, before + 1, 'the newest is remembered');
});

test("a tenant failing past its share forgets its own oldest failures, never another tenant's", async () => {
  const { fetched, fetch } = counting(() => new Error('reset'));
  const remembering = rememberFailures(fetch, () => 0);
  await assert.rejects(remembering('https://victim.example/jwks', { tenant: 'victim' }));
  const { perTenant } = FETCH_FAILURE_MEMORY;
  for (let i = 0; i <= perTenant; i++) await assert.rejects(remembering(`https://churn.example/${i}`, { tenant: 'churner' }));
  const before = fetched.length;
  await assert.rejects(remembering('https://victim.example/jwks', { tenant: 'victim' }));
  assert.equal(fetched.length, before, "the other tenant's failure is still remembered");
  await assert.rejects(remembering('https://churn.example/0', { tenant: 'churner' }));
  assert.equal(fetched.length, before + 1, "the churning tenant's oldest was forgotten");
  await assert.rejects(remembering(`https://churn.example/${perTenant}`, { tenant: 'churner' }));
  assert.equal(fetched.length, before + 1, 'its newest is remembered');
});
