/**
 * Delegation by token exchange (RFC 8693; docs/auth-service.md "Delegation (token exchange)"): a
 * sub-agent client, registered for the grant alone and speaking through openid-client's generic
 * grant request, trades a person's access token for a narrower one of its own: the same project,
 * a level at or below the parent's, a lifetime within the parent's, an `act` chain naming it,
 * no refresh token; each refusal is the RFC's error; DPoP-bound parents give bound children only
 * to a proof of their key; revoking a parent (token or grant) ends every token delegated from it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DELEGATIONS_PER_GRANT_MAX, oidcRecordKey } from '@svc/accounts';
import * as oc from 'openid-client';
import { DELEGATED_TOKEN_MAX_TTL_SECONDS } from '../src/oauth/token-exchange.ts';
import { EXCHANGE_DPOP_IAT_WINDOW_SECONDS } from '../src/oauth/token-exchange-dpop.ts';
import { mintRefreshToken, newProject, postForm, startAuth, type AuthFixture } from './support.ts';
import {
  ACCESS_TOKEN_TYPE,
  clientConfig,
  dpopKey,
  dpopProof,
  exchange,
  exchangeRaw,
  introspect,
  mintAccessToken,
  refusal,
  registerSubAgent,
  TOKEN_EXCHANGE_GRANT,
} from './token-exchange-support.ts';

let f: AuthFixture;
let subAgent: string;
let config: oc.Configuration;
let owner: Awaited<ReturnType<typeof newProject>>;
let other: Awaited<ReturnType<typeof newProject>>;

before(async () => {
  f = await startAuth();
  subAgent = await registerSubAgent(f, 'Sub-agent');
  config = await clientConfig(f, subAgent);
  owner = await newProject(f, 'delegate');
  other = await newProject(f, 'elsewhere');
});
after(async () => {
  await f.close();
});

const parentOf = (t: Partial<Parameters<typeof mintAccessToken>[1]> = {}) =>
  mintAccessToken(f, { accountId: owner.user.id, resource: owner.resource, ...t });

const alive = async (model: string, id: string) => (await f.client.exists(oidcRecordKey(model, id))) === 1;

test('the grant is advertised, and a sub-agent registers for it alone with no redirect URI', async () => {
  const meta = (await (await fetch(`${f.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  assert.ok((meta['grant_types_supported'] as string[]).includes(TOKEN_EXCHANGE_GRANT));
  assert.ok(config.serverMetadata().grant_types_supported?.includes(TOKEN_EXCHANGE_GRANT));
  const reg = await fetch(`${f.url}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Lone agent', grant_types: [TOKEN_EXCHANGE_GRANT] }),
  });
  assert.equal(reg.status, 201, await reg.clone().text());
  const body = (await reg.json()) as Record<string, unknown>;
  assert.deepEqual(body['redirect_uris'], []);
  assert.deepEqual(body['grant_types'], [TOKEN_EXCHANGE_GRANT]);
});

test('a sub-agent trades the parent for a narrower token naming it in act, with no refresh token', async () => {
  const parent = await parentOf({ grantScope: 'mcp:admin', scope: 'mcp' });
  const child = await exchange(config, parent.token, { scope: 'mcp:read' });
  assert.match(child.access_token, /^svc_at_/);
  assert.equal(child['issued_token_type'], ACCESS_TOKEN_TYPE);
  assert.equal(child.token_type, 'bearer');
  assert.equal(child.scope, 'mcp:read');
  assert.equal(child.refresh_token, undefined);
  assert.ok(child.expires_in !== undefined && child.expires_in <= DELEGATED_TOKEN_MAX_TTL_SECONDS);
  assert.equal(child['project_slug'], owner.slug);
  const seen = await introspect(f, subAgent, child.access_token);
  assert.equal(seen['active'], true);
  assert.equal(seen['client_id'], subAgent);
  assert.equal(seen['sub'], owner.user.id);
  assert.equal(seen['aud'], owner.resource);
  assert.deepEqual(seen['act'], { sub: subAgent, act: { sub: 'svc-mcp' } });
  // Audited in the project's workspace with the chain, current actor first.
  const log = await f.accounts.audit.page(owner.user.workspace, { action: 'oauth_app.authorized' });
  const entry = log.entries.find((e) => e.target === `client:${subAgent}`);
  assert.equal(entry?.detail?.['act'], `${subAgent} svc-mcp`);
  assert.equal(entry?.detail?.['scope'], 'mcp:read');
});

test("with no scope asked the child acts at the parent's level: the lowest of role, approval and scope", async () => {
  const approved = await parentOf({ grantScope: 'mcp:write', scope: 'mcp' });
  assert.equal((await exchange(config, approved.token)).scope, 'mcp:write');
  const scoped = await parentOf({ grantScope: 'mcp:admin', scope: 'openid mcp:read' });
  assert.equal((await exchange(config, scoped.token, { scope: 'mcp' })).scope, 'mcp:read');
  // An EDITOR member's ADMIN approval acts at EDITOR: so does the child, and it cannot ask more.
  const editor = await f.accounts.users.create({ emailVerified: true, email: `ed-${Date.now()}@example.com`, password: 'x'.repeat(16) });
  await f.accounts.workspaces.setRole(owner.slug, editor.id, 'EDITOR');
  const member = await mintAccessToken(f, { accountId: editor.id, resource: owner.resource, grantScope: 'mcp:admin' });
  assert.equal((await exchange(config, member.token)).scope, 'mcp:write');
  assert.equal((await refusal(exchange(config, member.token, { scope: 'mcp:admin' }))).error, 'invalid_scope');
});

test("the child's lifetime ends with its parent's", async () => {
  const parent = await parentOf({ ttl: 120 });
  const child = await exchange(config, parent.token);
  assert.ok(child.expires_in !== undefined && child.expires_in <= 120, `expires_in ${child.expires_in}`);
  const parentExp = (await introspect(f, 'svc-mcp', parent.token))['exp'] as number;
  const childExp = (await introspect(f, subAgent, child.access_token))['exp'] as number;
  assert.ok(childExp <= parentExp, `${childExp} > ${parentExp}`);
});

test('each refusal is the RFC 8693 error naming the check', async () => {
  const parent = await parentOf();
  const { token: refreshToken } = await mintRefreshToken(f, 'delegate-rt');
  const foreign = await mintAccessToken(f, { accountId: other.user.id, resource: other.resource });
  const cases: [string, Record<string, string>, string, RegExp][] = [
    ['no subject token', { subject_token_type: ACCESS_TOKEN_TYPE }, 'invalid_request', /subject_token is required/],
    ['no subject token type', { subject_token: parent.token }, 'invalid_request', /subject_token_type must be/],
    ['a refresh token', { subject_token: refreshToken, subject_token_type: ACCESS_TOKEN_TYPE }, 'invalid_request', /refresh token cannot/],
    [
      'a refresh token type',
      { subject_token: parent.token, subject_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' },
      'invalid_request',
      /refresh token cannot/,
    ],
    ['an unknown token', { subject_token: 'svc_at_nope', subject_token_type: ACCESS_TOKEN_TYPE }, 'invalid_request', /not an active/],
    [
      'a refresh token asked for',
      {
        subject_token: parent.token,
        subject_token_type: ACCESS_TOKEN_TYPE,
        requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token',
      },
      'invalid_request',
      /only .*access_token is issued/,
    ],
    [
      'an actor token',
      {
        subject_token: parent.token,
        subject_token_type: ACCESS_TOKEN_TYPE,
        actor_token: parent.token,
        actor_token_type: ACCESS_TOKEN_TYPE,
      },
      'invalid_request',
      /actor_token is not accepted/,
    ],
    [
      'another project',
      { subject_token: parent.token, subject_token_type: ACCESS_TOKEN_TYPE, resource: other.resource },
      'invalid_target',
      /own resource/,
    ],
    [
      'another audience',
      { subject_token: parent.token, subject_token_type: ACCESS_TOKEN_TYPE, audience: 'https://elsewhere.example' },
      'invalid_target',
      /own resource/,
    ],
    [
      "another project's token narrowed into this one",
      { subject_token: foreign.token, subject_token_type: ACCESS_TOKEN_TYPE, resource: owner.resource },
      'invalid_target',
      /own resource/,
    ],
    [
      'a scope that is not MCP',
      { subject_token: parent.token, subject_token_type: ACCESS_TOKEN_TYPE, scope: 'openid' },
      'invalid_scope',
      /MCP scopes only/,
    ],
  ];
  for (const [name, params, error, description] of cases) {
    const res = await exchangeRaw(f, subAgent, params);
    assert.equal(res.status, 400, name);
    assert.equal(res.body['error'], error, `${name}: ${JSON.stringify(res.body)}`);
    assert.match(String(res.body['error_description']), description, name);
  }
  // A client not registered for the grant is refused by the provider itself.
  const svcMcp = await exchangeRaw(f, 'svc-mcp', { subject_token: parent.token, subject_token_type: ACCESS_TOKEN_TYPE });
  assert.equal(svcMcp.body['error'], 'invalid_request');
  assert.match(String(svcMcp.body['error_description']), /grant type is not allowed/);
  // None of them left a token behind.
  assert.equal((await introspect(f, 'svc-mcp', parent.token))['active'], true);
});

test('a token is delegated at most three times down one line; act nests the whole chain', async () => {
  const agents = [subAgent, await registerSubAgent(f, 'Second'), await registerSubAgent(f, 'Third'), await registerSubAgent(f, 'Fourth')];
  const configs = await Promise.all(agents.map((a) => clientConfig(f, a)));
  let token = (await parentOf()).token;
  for (const c of configs.slice(0, 3)) token = (await exchange(c, token, { scope: 'mcp:write' })).access_token;
  const seen = await introspect(f, agents[2]!, token);
  assert.deepEqual(seen['act'], { sub: agents[2], act: { sub: agents[1], act: { sub: agents[0], act: { sub: 'svc-mcp' } } } });
  const fourth = await refusal(exchange(configs[3]!, token));
  assert.equal(fourth.error, 'invalid_request');
  assert.match(fourth.description, /at most 3 times/);
});

test("a DPoP-bound parent's child is bound to the same key, given only to a proof of it", async () => {
  const key = await dpopKey();
  const parent = await parentOf({ jkt: key.jkt });
  const bare = await refusal(exchange(config, parent.token));
  assert.equal(bare.error, 'invalid_request');
  assert.match(bare.description, /DPoP-bound/);
  const stranger = await dpopKey();
  const wrong = await refusal(exchange(config, parent.token, {}, oc.getDPoPHandle(config, stranger.pair)));
  assert.match(wrong.description, /not signed by the key/);
  const child = await exchange(config, parent.token, {}, oc.getDPoPHandle(config, key.pair));
  assert.equal(child.token_type, 'dpop');
  assert.deepEqual((await introspect(f, subAgent, child.access_token))['cnf'], { jkt: key.jkt });
  // A proof is used once; a proof for another endpoint or too old is refused.
  const proof = await dpopProof(f, key);
  const params = { subject_token: parent.token, subject_token_type: ACCESS_TOKEN_TYPE };
  assert.equal((await exchangeRaw(f, subAgent, params, { DPoP: proof })).status, 200);
  const again = await exchangeRaw(f, subAgent, params, { DPoP: proof });
  assert.equal(again.body['error'], 'invalid_dpop_proof');
  assert.match(String(again.body['error_description']), /already used/);
  const elsewhere = await exchangeRaw(f, subAgent, params, { DPoP: await dpopProof(f, key, { htu: `${f.url}/api/oauth/revoke` }) });
  assert.equal(elsewhere.body['error'], 'invalid_dpop_proof');
  const iat = Math.floor(Date.now() / 1000) - EXCHANGE_DPOP_IAT_WINDOW_SECONDS - 5;
  const stale = await exchangeRaw(f, subAgent, params, { DPoP: await dpopProof(f, key, { iat }) });
  assert.equal(stale.body['error'], 'invalid_dpop_proof');
});

test("a bearer parent's child is bound to the key of the request's proof, if any", async () => {
  const parent = await parentOf();
  const key = await dpopKey();
  const child = await exchange(config, parent.token, {}, oc.getDPoPHandle(config, key.pair));
  assert.deepEqual((await introspect(f, subAgent, child.access_token))['cnf'], { jkt: key.jkt });
  assert.equal((await exchange(config, parent.token)).token_type, 'bearer');
});

test('revoking the parent token ends every token delegated from it, down the chain', async () => {
  const second = await registerSubAgent(f, 'Grandchild agent');
  const parent = await parentOf();
  const child = await exchange(config, parent.token);
  const grandchild = await exchange(await clientConfig(f, second), child.access_token);
  const sibling = await exchange(config, (await parentOf()).token);
  // RFC 7009 by the parent's own client.
  const revoked = await postForm(`${f.url}/api/oauth/revoke`, { token: parent.token, client_id: 'svc-mcp' });
  assert.equal(revoked.status, 200);
  for (const [name, client, token] of [
    ['child', subAgent, child.access_token],
    ['grandchild', second, grandchild.access_token],
  ] as const) {
    assert.equal((await introspect(f, client, token))['active'], false, name);
    assert.equal(await alive('AccessToken', token), false, name);
  }
  assert.equal((await introspect(f, subAgent, sibling.access_token))['active'], true);
  // And the parent cannot be exchanged again.
  assert.equal((await refusal(exchange(config, parent.token))).error, 'invalid_request');
});

test("revoking the parent's grant (authorized apps) ends its delegations; revoking a child ends only its own line", async () => {
  const parent = await parentOf();
  const a = await exchange(config, parent.token);
  const b = await exchange(config, parent.token);
  const second = await registerSubAgent(f, 'Under b');
  const underB = await exchange(await clientConfig(f, second), b.access_token);
  // The child's own client revokes it: its line ends, its parent and sibling stay.
  assert.equal((await postForm(`${f.url}/api/oauth/revoke`, { token: b.access_token, client_id: subAgent })).status, 200);
  assert.equal((await introspect(f, second, underB.access_token))['active'], false);
  assert.equal((await introspect(f, subAgent, a.access_token))['active'], true);
  assert.equal((await introspect(f, 'svc-mcp', parent.token))['active'], true);
  await f.accounts.oauthGrants.revoke(parent.grantId);
  assert.equal((await introspect(f, subAgent, a.access_token))['active'], false);
  assert.equal(await f.client.exists(`svc:oidc:grant-delegations:${parent.grantId}`), 0);
});

test(`a grant has at most ${DELEGATIONS_PER_GRANT_MAX} live delegations, counted after the write; an ended one frees its place`, async () => {
  const parent = await parentOf();
  const params = { subject_token: parent.token, subject_token_type: ACCESS_TOKEN_TYPE };
  const issued: string[] = [];
  const take = async () => {
    const res = await exchangeRaw(f, subAgent, params);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    issued.push(String(res.body['access_token']));
  };
  while (issued.length < DELEGATIONS_PER_GRANT_MAX - 5) await take();
  // Ten at once for the last five places: none is let past the bound.
  const answers = await Promise.all(Array.from({ length: 10 }, () => exchangeRaw(f, subAgent, params)));
  for (const a of answers)
    if (a.status === 200) issued.push(String(a.body['access_token']));
    else assert.match(String(a.body['error_description']), /live delegated tokens/, JSON.stringify(a.body));
  assert.ok(issued.length <= DELEGATIONS_PER_GRANT_MAX, `${issued.length} issued`);
  while (issued.length < DELEGATIONS_PER_GRANT_MAX) await take();
  const over = await exchangeRaw(f, subAgent, params);
  assert.equal(over.body['error'], 'invalid_request', JSON.stringify(over.body));
  for (const token of issued) assert.equal((await introspect(f, subAgent, token))['active'], true);
  // One revoked by its client: its place is free again.
  await postForm(`${f.url}/api/oauth/revoke`, { token: issued[0]!, client_id: subAgent });
  const freed = await exchangeRaw(f, subAgent, params);
  assert.equal(freed.status, 200, JSON.stringify(freed.body));
});
