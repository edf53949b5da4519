/**
 * A stuck Redis (SIGSTOP: the connection stays open, nothing answers) is answered within a second
 * on every request path of the auth host (docs/operations.md "When Redis stops answering"): 503
 * with Retry-After, an OAuth `temporarily_unavailable` body on the OAuth endpoints and a page on
 * the pages. A refresh token claimed at the instant Redis stopped is not left claimed: the
 * client's retry after Redis returns is answered at once with a new pair.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis, REQUEST_STALL_ANSWER_MS, STORE_DOWN_RETRY_AFTER_SECONDS } from '@svc/accounts';
import { waitFor } from '@svc/testkit';
import {
  DEVICE_GRANT,
  startAuth,
  TEST_PASSWORD as PASSWORD,
  type AuthFixture,
  mintRefreshToken as mintSharedRefreshToken,
} from './support.ts';

const REDIRECT = 'http://127.0.0.1:45997/cb';

let f: AuthFixture;

before(async () => {
  f = await startAuth();
});
after(async () => {
  await f.close();
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function send(
  path: string,
  init: { method?: string; form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined;
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  } else if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  const res = await fetch(`${f.url}${path}`, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() } satisfies Answer;
}

const tag = () => Math.random().toString(36).slice(2, 8);

const mintRefreshToken = () => mintSharedRefreshToken(f, 'stall');

async function registeredClient(): Promise<string> {
  const reg = await send('/api/oauth/register', { json: { redirect_uris: [REDIRECT], client_name: 'stall check' } });
  assert.equal(reg.status, 201, reg.text);
  return String((JSON.parse(reg.text) as Record<string, unknown>)['client_id']);
}

/** A browser on the sign-in page: its cookies and CSRF token; signed in when `email` is given. */
async function browser(email?: string): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${f.url}/signin`);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await res.text())?.[1] ?? '';
  let cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  if (email) {
    const signedIn = await send('/signin', { form: { csrf, email, password: PASSWORD }, headers: { cookie } });
    assert.equal(signedIn.status, 303, signedIn.text);
    const session = signedIn.headers.getSetCookie().map((c) => c.split(';')[0]);
    cookie = [cookie, ...session].join('; ');
  }
  return { cookie, csrf };
}

interface PathCase {
  name: string;
  /** The answer's shape: an OAuth error body, or a page. */
  body: 'oauth' | 'page';
  /** Prepares with Redis up; returns the request to send while it is stuck. */
  prepare(): Promise<() => Promise<Answer>>;
}

const form = (path: string, fields: Record<string, string>) => () => send(path, { form: fields });
const html = { accept: 'text/html' };

const PATHS: PathCase[] = [
  {
    name: 'token: refresh_token grant',
    body: 'oauth',
    prepare: async () => {
      const { token } = await mintRefreshToken();
      return form('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: token, client_id: 'svc-mcp' });
    },
  },
  {
    name: 'token: authorization_code grant',
    body: 'oauth',
    prepare: async () => {
      const clientId = await registeredClient();
      return form('/api/oauth/token', {
        grant_type: 'authorization_code',
        code: 'x'.repeat(43),
        redirect_uri: REDIRECT,
        code_verifier: 'v'.repeat(43),
        client_id: clientId,
      });
    },
  },
  {
    name: 'token: device_code grant',
    body: 'oauth',
    prepare: async () => {
      const code = await send('/api/oauth/device/code', { form: { client_id: 'svc-mcp' } });
      assert.equal(code.status, 200, code.text);
      const deviceCode = String((JSON.parse(code.text) as Record<string, unknown>)['device_code']);
      return form('/api/oauth/token', { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: 'svc-mcp' });
    },
  },
  { name: 'device authorization', body: 'oauth', prepare: async () => form('/api/oauth/device/code', { client_id: 'svc-mcp' }) },
  {
    name: 'introspection',
    body: 'oauth',
    prepare: async () => form('/api/oauth/introspect', { token: (await mintRefreshToken()).token, client_id: 'svc-mcp' }),
  },
  {
    name: 'revocation',
    body: 'oauth',
    prepare: async () => form('/api/oauth/revoke', { token: (await mintRefreshToken()).token, client_id: 'svc-mcp' }),
  },
  {
    name: 'registration',
    body: 'oauth',
    prepare: async () => () => send('/api/oauth/register', { json: { redirect_uris: [REDIRECT], client_name: 'stall' } }),
  },
  {
    name: 'authorize',
    body: 'oauth',
    prepare: async () => {
      const query = new URLSearchParams({
        client_id: await registeredClient(),
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'mcp',
        code_challenge: 'c'.repeat(43),
        code_challenge_method: 'S256',
        state: 's',
      });
      return () => send(`/api/oauth/authorize?${query}`, { headers: html });
    },
  },
  {
    name: 'sign-in (POST)',
    body: 'page',
    prepare: async () => {
      const user = await f.accounts.users.create({ emailVerified: true, email: `signin-${tag()}@example.com`, password: PASSWORD });
      const b = await browser();
      return () =>
        send('/signin', { form: { csrf: b.csrf, email: user.email, password: PASSWORD }, headers: { ...html, cookie: b.cookie } });
    },
  },
  {
    name: 'dashboard page',
    body: 'page',
    prepare: async () => {
      const user = await f.accounts.users.create({ emailVerified: true, email: `dash-${tag()}@example.com`, password: PASSWORD });
      const slug = `dash-${tag()}`;
      await f.accounts.workspaces.createProject({ slug, workspace: user.workspace });
      const b = await browser(user.email);
      const keys = `/dashboard/projects/${slug}/keys`;
      const ok = await send(keys, { headers: { ...html, cookie: b.cookie } });
      assert.equal(ok.status, 200, `the dashboard before the stall: ${ok.status}`);
      return () => send(keys, { headers: { ...html, cookie: b.cookie } });
    },
  },
];

const readyStatus = async () => (await fetch(`${f.url}/readyz`)).status;
const ready = () =>
  waitFor(async () => (await readyStatus()) === 200, { timeout: 5_000, interval: 20, message: 'readiness after Redis resumed' });

for (const p of PATHS) {
  test(`Redis stuck: ${p.name} answers 503 with Retry-After within ${REQUEST_STALL_ANSWER_MS} ms`, async (t) => {
    await ready();
    const request = await p.prepare();
    f.redis.pause();
    let answer: Answer;
    let ms: number;
    try {
      const started = performance.now();
      answer = await request();
      ms = performance.now() - started;
    } finally {
      f.redis.resume();
    }
    t.diagnostic(`${answer.status} in ${Math.round(ms)} ms`);
    assert.equal(answer.status, 503, `${p.name}: ${answer.status} ${answer.text.slice(0, 200)}`);
    assert.equal(answer.headers.get('retry-after'), String(STORE_DOWN_RETRY_AFTER_SECONDS));
    if (p.body === 'oauth') assert.equal((JSON.parse(answer.text) as Record<string, unknown>)['error'], 'temporarily_unavailable');
    else assert.match(answer.text, /account store is unreachable/);
    assert.ok(ms < REQUEST_STALL_ANSWER_MS, `${p.name} took ${Math.round(ms)} ms`);
    await ready();
  });
}

const refresh = (token: string) =>
  send('/api/oauth/token', { form: { grant_type: 'refresh_token', refresh_token: token, client_id: 'svc-mcp' } });

/** The refresh tokens of a grant that are stored and not consumed. */
async function liveRefreshTokens(grantId: string): Promise<number> {
  let live = 0;
  for (const key of await f.client.smembers(`svc:oidc:grant-keys:${grantId}`)) {
    const h = await f.client.hgetall(key);
    const payload = h['payload'] ? (JSON.parse(h['payload']) as { kind?: string }) : null;
    if (payload?.kind === 'RefreshToken' && !h['consumed']) live += 1;
  }
  return live;
}

test('a refresh claimed as Redis stops is not left claimed: the retry once Redis is back gets a new pair at once', async (t) => {
  await ready();
  const { token, grantId } = await mintRefreshToken();
  // Redis is stopped the moment it has executed the claim (MONITOR shows it), before any reply
  // of the rotation: the claimer's request fails for the store, its claim stays behind in Redis.
  const watcher = connectRedis(f.redis.url, { name: 'stall-monitor' });
  const monitor = await watcher.monitor();
  let claimed = false;
  monitor.on('monitor', (_time: string, args: string[]) => {
    if (claimed || args[0]?.toLowerCase() !== 'set' || !args[1]?.startsWith('svc:oidc:refresh-claim:')) return;
    claimed = true;
    f.redis.pause();
  });
  let first: Answer;
  try {
    first = await refresh(token);
  } finally {
    f.redis.resume();
    monitor.disconnect();
    watcher.disconnect();
  }
  assert.ok(claimed, 'Redis was stopped at the claim');
  assert.equal(first.status, 503, first.text);
  assert.equal((JSON.parse(first.text) as Record<string, unknown>)['error'], 'temporarily_unavailable');

  await ready();
  const started = performance.now();
  const retry = await refresh(token);
  const ms = performance.now() - started;
  t.diagnostic(`retry: ${retry.status} in ${Math.round(ms)} ms`);
  assert.equal(retry.status, 200, retry.text);
  assert.ok(ms < REQUEST_STALL_ANSWER_MS, `the retry took ${Math.round(ms)} ms`);
  assert.equal(await liveRefreshTokens(grantId), 1, 'one token family');
  // The rotated token is the live one, and the old one still answers with the same pair.
  const body = JSON.parse(retry.text) as Record<string, unknown>;
  assert.deepEqual(JSON.parse((await refresh(token)).text), body);
  assert.equal((await refresh(String(body['refresh_token']))).status, 200);
  assert.equal(await liveRefreshTokens(grantId), 1);
});
