/**
 * Redis goes away under a running auth-service: OAuth endpoints answer 503 temporarily_unavailable,
 * pages answer a 503 page, liveness stays up and readiness reports it; when Redis returns the
 * service works again by itself.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { waitFor } from '@svc/testkit';
import { providerStoreOutage, STORE_DOWN_MESSAGE } from '../src/http/store-outage.ts';
import { postJson, startAuth, type AuthFixture } from './support.ts';

let f: AuthFixture;

before(async () => {
  f = await startAuth();
});
after(async () => {
  await f.close();
});

const readyStatus = async () => (await fetch(`${f.url}/readyz`)).status;

test('Redis down: 503 with a message naming the problem, never a 500; back up: works again', async () => {
  assert.equal((await postJson(`${f.url}/api/oauth/device/code`, { client_id: 'svc-mcp' })).status, 200);
  await f.redis.kill();
  await waitFor(async () => (await readyStatus()) === 503, { timeout: 10_000, interval: 100, message: 'readiness to report the outage' });

  const code = await postJson(`${f.url}/api/oauth/device/code`, { client_id: 'svc-mcp' });
  assert.equal(code.status, 503);
  assert.equal(code.body['error'], 'temporarily_unavailable');
  assert.equal(code.body['error_description'], STORE_DOWN_MESSAGE);
  assert.equal(code.headers.get('retry-after'), '5');

  const token = await postJson(`${f.url}/api/oauth/token`, {
    grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
    device_code: 'x',
    client_id: 'svc-mcp',
  });
  assert.equal(token.status, 503);
  assert.equal(token.body['error'], 'temporarily_unavailable');

  const signIn = await fetch(`${f.url}/signin`, { headers: { accept: 'text/html' } });
  assert.equal(signIn.status, 503);
  assert.match(await signIn.text(), /account store is unreachable/);
  assert.equal((await fetch(`${f.url}/healthz`)).status, 200);

  await f.redis.restart();
  await waitFor(async () => (await readyStatus()) === 200, { timeout: 10_000, interval: 100, message: 'readiness after Redis returned' });
  const again = await postJson(`${f.url}/api/oauth/device/code`, { client_id: 'svc-mcp' });
  assert.equal(again.status, 200);
  assert.match(String(again.body['user_code']), /^[A-Z]{4}-[0-9]{4}$/);
});

test('a server_error raised by the provider while Redis is down becomes the 503; other 500s stay as they are', async () => {
  const run = async (status: string, path: string, accept = 'application/json') => {
    const headers: Record<string, string> = {};
    const ctx = {
      status: 500,
      path,
      body: { error: 'server_error' } as unknown,
      type: '',
      get: () => accept,
      set: (k: string, v: string) => (headers[k] = v),
    };
    const step = providerStoreOutage({ status } as unknown as Parameters<typeof providerStoreOutage>[0]);
    await step(ctx as unknown as Parameters<typeof step>[0], async () => {});
    return { ...ctx, headers };
  };
  const down = await run('reconnecting', '/api/oauth/token');
  assert.equal(down.status, 503);
  assert.deepEqual(down.body, { error: 'temporarily_unavailable', error_description: STORE_DOWN_MESSAGE });
  assert.equal(down.headers['Retry-After'], '5');
  const page = await run('end', '/interaction/abc', 'text/html,application/xhtml+xml');
  assert.equal(page.status, 503);
  assert.equal(page.type, 'html');
  assert.match(String(page.body), /account store is unreachable/);
  const up = await run('ready', '/api/oauth/token');
  assert.equal(up.status, 500);
  assert.deepEqual(up.body, { error: 'server_error' });
});
