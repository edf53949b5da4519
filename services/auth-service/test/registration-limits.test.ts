/**
 * Dynamically registered clients are bounded (docs/contract.md "Dynamic registration limits"):
 * metadata of at most 8 KB, a safe client name, and a lifetime: 30 days after registration, or
 * after the end of the client's last grant.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createHash } from 'node:crypto';
import { CLIENT_IDLE_SECONDS } from '../src/provider/redis-adapter.ts';
import { postJson, startAuth, type AuthFixture } from './support.ts';

let f: AuthFixture;
before(async () => {
  f = await startAuth({ limits: { registrationPerIp: { limit: 1000, windowSeconds: 60 } } });
});
after(async () => {
  await f.close();
});

const register = (extra: Record<string, unknown>) =>
  postJson(`${f.url}/api/oauth/register`, { redirect_uris: ['http://127.0.0.1:9/cb'], ...extra });
const clientKey = (id: string) => `svc:oidc:Client:${createHash('sha256').update(id).digest('base64url')}`;

test('metadata over 8 KB is refused; what is stored stays small', async () => {
  for (const extra of [
    { client_name: 'x'.repeat(50_000) },
    { redirect_uris: Array.from({ length: 2000 }, (_, i) => `http://127.0.0.1/cb${i}`) },
    { tos_uri: `https://x.example/${'a'.repeat(9000)}` },
  ]) {
    const res = await register(extra);
    assert.equal(res.status, 400, Object.keys(extra).join());
    assert.equal(res.body['error'], 'invalid_client_metadata');
  }
  const ok = await register({ client_name: 'Fine', tos_uri: `https://x.example/${'a'.repeat(7000)}` });
  assert.equal(ok.status, 201);
  const stored = await f.client.hget(clientKey(String(ok.body['client_id'])), 'payload');
  assert.ok(stored && stored.length < 8 * 1024 + 1024, `stored ${stored?.length} bytes`);
});

test('client names: at most 80 characters, no control or bidi characters, not a first-party name', async () => {
  for (const client_name of ['x'.repeat(81), 'evil\u202eppa', 'tab\there', 'svc command-line tool', 'SVC MCP Client']) {
    const res = await register({ client_name });
    assert.equal(res.status, 400, JSON.stringify(client_name));
    assert.equal(res.body['error'], 'invalid_client_metadata');
  }
  assert.equal((await register({ 'client_name#fr': 'x'.repeat(81) })).status, 400);
  // Invisible characters, and look-alikes of a first-party name (docs/management.md "Names").
  for (const client_name of [
    'svc\u00a0MCP client',
    'svc MCP\u200b client',
    'Acme\u2060Tool',
    'ѕvс MCP сlient',
    'ｓｖｃ ＭＣＰ ｃｌｉｅｎｔ',
    'svc MCP cIient',
    'svc-companion',
    'SVC  Companion',
  ]) {
    const res = await register({ client_name });
    assert.equal(res.status, 400, JSON.stringify(client_name));
    assert.equal(res.body['error'], 'invalid_client_metadata');
  }
  assert.equal((await register({ client_name: 'é'.repeat(80) })).status, 201);
});

test('a registered client and its registration token expire; a grant extends the client', async () => {
  const res = await register({ client_name: 'Lifetime' });
  const id = String(res.body['client_id']);
  const ttl = await f.client.ttl(clientKey(id));
  assert.ok(ttl > CLIENT_IDLE_SECONDS - 60 && ttl <= CLIENT_IDLE_SECONDS, `client ttl ${ttl}`);
  for (const key of await f.client.keys('svc:oidc:RegistrationAccessToken:*')) assert.ok((await f.client.ttl(key)) > 0, key);
  const grant = new f.service.provider.Grant({ accountId: 'u1', clientId: id });
  await grant.save();
  const extended = await f.client.ttl(clientKey(id));
  assert.ok(extended > CLIENT_IDLE_SECONDS + 30 * 86_400, `client ttl after a grant: ${extended}`);
});
