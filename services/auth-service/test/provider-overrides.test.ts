/**
 * Pins every oidc-provider internal our overrides patch or rely on (docs/auth-service.md
 * "oidc-provider overrides"): each test asserts that the internal still exists with the shape the
 * override expects, on an untouched library instance, and that our instance carries the override.
 * A library upgrade that moves one fails here first, by name, rather than somewhere downstream.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { oidcRecordKey } from '@svc/accounts';
import { parseCredential } from '@svc/credentials';
import Provider, { interactionPolicy } from 'oidc-provider';
import { normalizeUserCode } from '../src/oauth/user-code.ts';
import { createInteractionPolicy } from '../src/provider/interaction-policy.ts';
import { startAuth, type AuthFixture } from './support.ts';

/** A module of the library that its typings do not describe. */
async function libraryModule<T>(path: string): Promise<T> {
  const specifier = `oidc-provider/${path}`;
  return (await import(specifier)) as T;
}
/** A Session made from a payload (the typings declare no constructor arguments). */
type SessionClass = new (payload: { jti: string }) => { persist(): Promise<unknown> };

/** The library's own source file, for internals that are not reachable as values. */
const librarySource = (path: string) => readFile(fileURLToPath(import.meta.resolve(`oidc-provider/${path}`)), 'utf8');

let f: AuthFixture;
/** An untouched instance: the library as the overrides find it. */
let bare: Provider;
before(async () => {
  f = await startAuth({ env: { AUTH_URL: 'https://auth.example' } });
  bare = new Provider('https://bare.example', { clients: [{ client_id: 'c', token_endpoint_auth_method: 'none', redirect_uris: [] }] });
});
after(async () => {
  await f.close();
});

type WithTokenId = { generateTokenId?: unknown };

test('AccessToken and RefreshToken generateTokenId: the value save() stores and returns', async () => {
  for (const model of [bare.AccessToken, bare.RefreshToken]) {
    assert.equal(typeof (model.prototype as WithTokenId).generateTokenId, 'function', `${model.name}.prototype.generateTokenId`);
  }
  const { provider } = f.service;
  const client = await provider.Client.find('svc-mcp');
  assert.ok(client);
  const at = new provider.AccessToken({ accountId: 'u', client, grantId: 'g', gty: 'device_code', scope: 'openid' });
  const value = await at.save();
  assert.equal(parseCredential(value)?.kind, 'access_token', 'the saved value is our credential');
  assert.equal(at.jti, value, 'the id, the jti and the value are one');
  assert.equal(await f.client.exists(oidcRecordKey('AccessToken', value)), 1, 'stored under that value');
  const rt = new provider.RefreshToken({ accountId: 'u', client, grantId: 'g', gty: 'device_code', scope: 'openid' });
  assert.equal(parseCredential(await rt.save())?.kind, 'refresh_token');
});

test('Session.prototype.persist: throws for a never-saved session in the library; ours saves it', async () => {
  const session = bare.Session.prototype as unknown as { persist?: unknown; save?: unknown };
  assert.equal(typeof session.persist, 'function');
  assert.equal(typeof session.save, 'function');
  await assert.rejects(
    new (bare.Session as unknown as SessionClass)({ jti: 'never-saved' }).persist(),
    TypeError,
    'the library refuses a session without exp',
  );
  // ensureSessionSave calls persist() on a touched session at the end of every request.
  assert.match(await librarySource('lib/helpers/initialize_app.js'), /ctx\.oidc\.session\.persist\(\)/);
  const ours = new (f.service.provider.Session as unknown as SessionClass)({ jti: 'svc-never-saved' });
  await ours.persist();
  assert.equal(await f.client.exists(oidcRecordKey('Session', 'svc-never-saved')), 1);
});

test('provider.request.protocol: Koa reads secure from it; ours is https for an https issuer', () => {
  const request = Object.getPrototypeOf(bare.request) as object;
  assert.equal(typeof Object.getOwnPropertyDescriptor(request, 'protocol')?.get, 'function', 'Koa request.protocol getter');
  const probe = Object.create(bare.request) as { secure: boolean };
  Object.defineProperty(probe, 'protocol', { get: () => 'https' });
  assert.equal(probe.secure, true, 'secure follows protocol');
  const ours = Object.create(f.service.provider.request) as { protocol: string; secure: boolean };
  assert.equal(ours.protocol, 'https');
  assert.equal(ours.secure, true);
});

test('provider.proxy and maxIpsCount: the Koa application fields', () => {
  assert.equal(bare.proxy, false);
  assert.equal(bare.maxIpsCount, 0);
  assert.equal(f.service.provider.proxy, true);
  assert.equal(f.service.provider.maxIpsCount, 1);
});

test('interaction policy: the login and consent prompts, rs_scopes_missing, Check results', () => {
  const base = interactionPolicy.base();
  assert.ok(base.get('login'), 'a login prompt');
  const consent = base.get('consent');
  assert.ok(consent, 'a consent prompt');
  assert.ok(consent.checks.get('rs_scopes_missing'), 'the consent check we remove');
  assert.equal(typeof consent.checks.remove, 'function');
  assert.notEqual(interactionPolicy.Check.REQUEST_PROMPT, interactionPolicy.Check.NO_NEED_TO_PROMPT);
  const ours = createInteractionPolicy({ webUserOf: async () => null });
  assert.equal(ours.get('consent')?.checks.get('rs_scopes_missing'), undefined);
  assert.ok(ours.get('consent')?.checks.get('svc_approval_required'));
  assert.ok(ours.get('login')?.checks.get('svc_session_mismatch'));
});

test('allow_redirect: the authorization error handler emits first, then renders when it is false', async () => {
  const handler = await librarySource('lib/shared/authorization_error_handler.js');
  const emitted = handler.search(/provider\.emit\('authorization\.error', ctx, err\)/);
  const decided = handler.search(/!err\.allow_redirect/);
  assert.ok(emitted >= 0 && decided > emitted, 'authorization.error is emitted before allow_redirect is read');
  assert.match(handler, /provider\.emit\('server_error', ctx, err\)/);
});

test('user codes: our normalisation is the library’s', async () => {
  const { normalize } = await libraryModule<{ normalize(input: string): string }>('lib/helpers/user_codes.js');
  for (const input of ['wdjb-4821', 'WDJB4821', ' w d j b 4 8 2 1 ', 'ab_cd-12', 'ÄBC-1']) {
    assert.equal(normalizeUserCode(input), normalize(input), input);
  }
});

test('device pages: the xsrf secret the library checks is session.state.secret', async () => {
  const xsrf = await librarySource('lib/shared/xsrf.js');
  assert.match(xsrf, /ctx\.oidc\.session\.state = \{ secret \}/);
  assert.match(xsrf, /ctx\.oidc\.session\.state\.secret, ctx\.oidc\.params\.xsrf/);
});
