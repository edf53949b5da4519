/**
 * Client credentials for service accounts (docs/auth-service.md "Client credentials"): the official
 * MCP SDK v2 client's private-key-JWT provider obtains an `svc_at_` token with the
 * client-credentials grant and calls a tool; hand-made client assertions show each refusal
 * (replayed jti, wrong audience, expired, too long-lived, unknown key: invalid_client); the token
 * works where the account's key would and nowhere else; revoking the account ends its tokens.
 */
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, randomUUID, sign, type JsonWebKey } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Client, PrivateKeyJwtProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { PublicJwk } from '@svc/accounts';
import { CLIENT_ASSERTION_MAX_LIFETIME_SECONDS } from '@svc/auth-service/oauth/client-credentials.ts';
import { outsideLoopBudget, waitFor } from '@svc/testkit';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { mcpCall } from './gateway-call.ts';

let stack: Stack;
let slug: string;
let workspace: string;
let botId: string;
let tokenUrl: string;
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const privateJwk = { ...privateKey.export({ format: 'jwk' }), kid: 'k1' };
const publicJwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256' } as PublicJwk;

before(async () => {
  stack = await outsideLoopBudget(() => startStack());
  const person = await newPerson(stack, 'cc');
  slug = person.slug;
  workspace = person.user.workspace;
  const { bot } = await stack.accounts.bots.create({ workspace, name: 'ci' });
  botId = bot.id;
  await stack.accounts.bots.grant(botId, slug, 'VIEWER');
  await stack.accounts.serviceAccountClients.setKeys(botId, { jwks: { keys: [publicJwk] } });
  tokenUrl = `${stack.authUrl}/api/oauth/token`;
});
after(async () => {
  await stack.close();
});

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** An ES256 client assertion (RFC 7523 §2.2) with the given claims over the defaults. */
function assertion(claims: Record<string, unknown> = {}, key: JsonWebKey = privateJwk, kid = 'k1'): string {
  const now = Math.floor(Date.now() / 1000);
  const head = b64({ alg: 'ES256', typ: 'JWT', kid });
  const body = b64({ iss: botId, sub: botId, aud: stack.authUrl, iat: now, exp: now + 60, jti: randomUUID(), ...claims });
  const signature = sign('sha256', Buffer.from(`${head}.${body}`), {
    key: createPrivateKey({ key, format: 'jwk' }),
    dsaEncoding: 'ieee-p1363',
  });
  return `${head}.${body}.${signature.toString('base64url')}`;
}

async function tokenRequest(clientAssertion: string, resource = `${stack.baseUrl}/mcp/${slug}`) {
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: botId,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: clientAssertion,
      resource,
    }),
  });
  return { status: res.status, body: (await res.json()) as { access_token?: string; error?: string; error_description?: string } };
}

test('the SDK v2 private-key-JWT provider gets a token and calls a tool', async () => {
  const provider = new PrivateKeyJwtProvider({
    clientId: botId,
    privateKey: privateJwk,
    algorithm: 'ES256',
    expectedIssuer: stack.authUrl,
  });
  const client = new Client({ name: 'ci', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/mcp/${slug}`), { authProvider: provider }));
  try {
    const r = await client.callTool({ name: 'svc_help', arguments: {} });
    assert.match((r.content as { text: string }[])[0]!.text, /Tools you can call/);
  } finally {
    await client.close();
  }
  assert.match(provider.tokens()?.access_token ?? '', /^svc_at_/);
});

test('the metadata advertises only the client authentication methods that work', async () => {
  const meta = (await (await fetch(`${stack.authUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  assert.deepEqual(meta['token_endpoint_auth_methods_supported'], ['none', 'private_key_jwt']);
  assert.ok((meta['grant_types_supported'] as string[]).includes('client_credentials'));
});

test('a replayed jti, a wrong audience, an expired or too long-lived assertion and an unknown key are invalid_client', async () => {
  const once = assertion();
  assert.equal((await tokenRequest(once)).status, 200);
  const replay = await tokenRequest(once);
  assert.deepEqual([replay.status, replay.body.error], [401, 'invalid_client'], 'replayed jti');
  const now = Math.floor(Date.now() / 1000);
  const cases: [string, string][] = [
    ['wrong audience', assertion({ aud: 'https://elsewhere.example' })],
    ['expired', assertion({ iat: now - 600, exp: now - 300 })],
    ['too long-lived', assertion({ exp: now + CLIENT_ASSERTION_MAX_LIFETIME_SECONDS + 60 })],
    ['no iat', assertion({ iat: undefined })],
    ['unknown key', assertion({}, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }), 'k1')],
  ];
  for (const [label, a] of cases) {
    const r = await tokenRequest(a);
    assert.deepEqual([r.status, r.body.error], [401, 'invalid_client'], label);
  }
});

test('the token works where the key would and is refused elsewhere', async () => {
  const project = await tokenRequest(assertion());
  assert.equal(project.status, 200, JSON.stringify(project.body));
  const at = project.body.access_token!;
  assert.equal((await mcpCall(stack.baseUrl, slug, at)).status, 200);
  // Bound to its project: the team endpoint and another project refuse it.
  assert.equal((await mcpCall(stack.baseUrl, `team/${workspace}`, at, 'tools/list', {})).status, 401);
  const other = await newPerson(stack, 'cc-other');
  assert.equal((await mcpCall(stack.baseUrl, other.slug, at)).status, 401);
  // Never issued for another workspace's project, as the key is refused there.
  const foreign = await tokenRequest(assertion(), `${stack.baseUrl}/mcp/${other.slug}`);
  assert.deepEqual([foreign.status, foreign.body.error], [400, 'invalid_target']);
  // The team endpoint, with a token for it: the granted projects.
  const team = await tokenRequest(assertion(), `${stack.baseUrl}/mcp/team/${workspace}`);
  assert.equal(team.status, 200, JSON.stringify(team.body));
  const listed = await mcpCall(stack.baseUrl, `team/${workspace}`, team.body.access_token!, 'tools/list', {});
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
});

test('a revoked service account gets no token and its tokens stop', async () => {
  const { bot } = await stack.accounts.bots.create({ workspace, name: 'short-lived' });
  await stack.accounts.bots.grant(bot.id, slug, 'VIEWER');
  await stack.accounts.serviceAccountClients.setKeys(bot.id, { jwks: { keys: [publicJwk] } });
  const own = (claims: Record<string, unknown> = {}) => assertion({ iss: bot.id, sub: bot.id, ...claims });
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: bot.id,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: own(),
      resource: `${stack.baseUrl}/mcp/${slug}`,
    }),
  });
  const at = ((await res.json()) as { access_token: string }).access_token;
  assert.equal((await mcpCall(stack.baseUrl, slug, at)).status, 200);
  await stack.accounts.bots.revoke(bot.id);
  // docs/contract.md "Credentials": refused within one second of the revocation.
  await waitFor(async () => (await mcpCall(stack.baseUrl, slug, at)).status === 401, { timeout: 1_000, message: 'the token to stop' });
  const again = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: bot.id,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: own(),
      resource: `${stack.baseUrl}/mcp/${slug}`,
    }),
  });
  assert.equal(again.status, 401);
});
