/**
 * Redis goes away under a running auth-service: OAuth endpoints answer 503 temporarily_unavailable,
 * pages answer a 503 page, liveness stays up and readiness reports it; when Redis returns the
 * service works again by itself.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { REQUEST_STALL_ANSWER_MS } from '@svc/accounts';
import { waitFor } from '@svc/testkit';
import { createLogger } from '@svc/logger';
import { providerErrors, SERVER_ERROR } from '../src/http/provider-errors.ts';
import { STORE_DOWN_MESSAGE } from '../src/http/store-outage.ts';
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

test('Redis paused (SIGSTOP): readiness says so within a second, requests answer 503 within REQUEST_STALL_ANSWER_MS', async () => {
  assert.equal(await readyStatus(), 200);
  f.redis.pause();
  try {
    let started = performance.now();
    assert.equal(await readyStatus(), 503);
    assert.ok(performance.now() - started < 1_000, `readiness took ${Math.round(performance.now() - started)} ms`);
    started = performance.now();
    const code = await postJson(`${f.url}/api/oauth/device/code`, { client_id: 'svc-mcp' });
    assert.equal(code.status, 503);
    assert.equal(code.body['error'], 'temporarily_unavailable');
    assert.ok(performance.now() - started < REQUEST_STALL_ANSWER_MS, `the request took ${Math.round(performance.now() - started)} ms`);
    const signIn = await fetch(`${f.url}/signin`, { headers: { accept: 'text/html' } });
    assert.ok([200, 503].includes(signIn.status), `sign-in page: ${signIn.status}`);
  } finally {
    f.redis.resume();
  }
  await waitFor(async () => (await readyStatus()) === 200, { timeout: 2_000, interval: 50, message: 'readiness after Redis resumed' });
  assert.equal((await postJson(`${f.url}/api/oauth/device/code`, { client_id: 'svc-mcp' })).status, 200);
});

test("provider errors: store failures become the 503, escaped errors our page or OAuth body, never Koa's plain 500", async () => {
  const logger = createLogger({ service: 'test', level: 'error', silent: true });
  const run = async (status: string, path: string, opts: { accept?: string; thrown?: unknown; serverError?: unknown } = {}) => {
    const headers: Record<string, string> = {};
    const ctx: Record<string | symbol, unknown> = {
      status: 500,
      path,
      body: { error: 'server_error' } as unknown,
      type: '',
      get: () => opts.accept ?? 'application/json',
      set: (k: string, v: string) => (headers[k] = v),
    };
    if (opts.serverError) ctx[SERVER_ERROR] = opts.serverError;
    const step = providerErrors({ redis: { status } as unknown as Parameters<typeof providerErrors>[0]['redis'], logger });
    await step(ctx as unknown as Parameters<typeof step>[0], async () => {
      if (opts.thrown) throw opts.thrown;
    });
    return { status: ctx['status'], body: ctx['body'], type: ctx['type'], headers };
  };
  const down = await run('reconnecting', '/api/oauth/token');
  assert.equal(down.status, 503);
  assert.deepEqual(down.body, { error: 'temporarily_unavailable', error_description: STORE_DOWN_MESSAGE });
  assert.equal(down.headers['Retry-After'], '5');
  const page = await run('end', '/interaction/abc', { accept: 'text/html,application/xhtml+xml' });
  assert.equal(page.status, 503);
  assert.equal(page.type, 'html');
  assert.match(String(page.body), /account store is unreachable/);
  // The instant Redis dies the client may still say "ready": the error itself tells.
  const instant = await run('ready', '/api/oauth/token', { serverError: new Error('Connection is closed.') });
  assert.equal(instant.status, 503);
  const timedOut = await run('ready', '/api/oauth/token', { thrown: new Error('Command timed out') });
  assert.equal(timedOut.status, 503);
  const up = await run('ready', '/api/oauth/token');
  assert.equal(up.status, 500);
  assert.deepEqual(up.body, { error: 'server_error' });
  const escaped = await run('ready', '/device/x', { accept: 'text/html', thrown: new TypeError('internal detail at lib/x.js') });
  assert.equal(escaped.status, 500);
  assert.equal(escaped.type, 'html');
  assert.doesNotMatch(String(escaped.body), /internal detail|lib\/x/);
  const refused = await run('ready', '/api/oauth/token', {
    thrown: Object.assign(new Error('x'), { expose: true, statusCode: 400, error: 'invalid_request', error_description: 'bad' }),
  });
  assert.equal(refused.status, 400);
  assert.deepEqual(refused.body, { error: 'invalid_request', error_description: 'bad' });
});
