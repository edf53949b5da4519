/**
 * What the token-exchange tests share (docs/auth-service.md "Delegation (token exchange)"): a
 * person's access token minted through the provider's models as the code flow saves one, a
 * sub-agent client registered for the grant (RFC 7591), openid-client configured for it, and
 * DPoP proofs made by hand for the refusals a real client never sends.
 */
import { randomUUID } from 'node:crypto';
import { MCP_SCOPES } from '@svc/policy';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import * as oc from 'openid-client';
import { ACCESS_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT } from '../src/oauth/token-exchange.ts';
import { DEVICE_GRANT, postForm, type AuthFixture } from './support.ts';

export { ACCESS_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT };

/** A person's access token for `resource`, its Grant recording `grantScope` (the consent page's level). */
export async function mintAccessToken(
  f: AuthFixture,
  t: { accountId: string; resource: string; clientId?: string; grantScope?: string; scope?: string; ttl?: number; jkt?: string },
): Promise<{ token: string; grantId: string }> {
  const p = f.service.provider;
  const clientId = t.clientId ?? 'svc-mcp';
  const grant = new p.Grant({ accountId: t.accountId, clientId });
  grant.addResourceScope(t.resource, t.grantScope ?? 'mcp:admin');
  const grantId = await grant.save();
  const client = await p.Client.find(clientId);
  if (!client) throw new Error(`${clientId} is a known client`);
  const ttl = t.ttl ?? 3_600;
  const at = new p.AccessToken({
    accountId: t.accountId,
    client,
    grantId,
    gty: DEVICE_GRANT,
    scope: t.scope ?? 'mcp',
    expiresWithSession: false,
  });
  at.resourceServer = new p.ResourceServer(t.resource, {
    audience: t.resource,
    scope: MCP_SCOPES.join(' '),
    accessTokenFormat: 'opaque',
    accessTokenTTL: ttl,
  });
  (at as unknown as { expiresIn: number }).expiresIn = ttl;
  if (t.jkt) at.setThumbprint('jkt', t.jkt);
  return { token: await at.save(), grantId };
}

/** A public client registered for token exchange only (no redirect URI): a sub-agent. */
export async function registerSubAgent(f: AuthFixture, name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(`${f.url}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, grant_types: [TOKEN_EXCHANGE_GRANT], token_endpoint_auth_method: 'none', ...extra }),
  });
  const body = (await res.json()) as { client_id?: string };
  if (res.status !== 201 || !body.client_id) throw new Error(`registration answered ${res.status}: ${JSON.stringify(body)}`);
  return body.client_id;
}

/** openid-client for `clientId`, a public client, from the server's discovery document. */
export function clientConfig(f: AuthFixture, clientId: string): Promise<oc.Configuration> {
  return oc.discovery(new URL(f.url), clientId, { token_endpoint_auth_method: 'none' }, oc.None(), {
    execute: [oc.allowInsecureRequests],
  });
}

/** RFC 8693 §2.1 through openid-client's generic grant request. */
export function exchange(
  config: oc.Configuration,
  subjectToken: string,
  extra: Record<string, string> = {},
  dpop?: oc.DPoPHandle,
): Promise<oc.TokenEndpointResponse> {
  const params = { subject_token: subjectToken, subject_token_type: ACCESS_TOKEN_TYPE, ...extra };
  return oc.genericGrantRequest(config, TOKEN_EXCHANGE_GRANT, params, dpop ? { DPoP: dpop } : undefined);
}

/** The same request as a raw form, for what openid-client would not send; the status and body. */
export function exchangeRaw(f: AuthFixture, clientId: string, params: Record<string, string>, headers: Record<string, string> = {}) {
  return postForm(`${f.url}/api/oauth/token`, { grant_type: TOKEN_EXCHANGE_GRANT, client_id: clientId, ...params }, headers);
}

/** The OAuth error openid-client threw. */
export async function refusal(p: Promise<unknown>): Promise<{ error: string; description: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof oc.ResponseBodyError) return { error: err.error, description: err.error_description ?? '' };
    throw err;
  }
  throw new Error('the exchange was not refused');
}

/** A DPoP key: its pair, its public JWK and RFC 7638 thumbprint. */
export async function dpopKey(): Promise<{ pair: CryptoKeyPair; jwk: JWK; jkt: string }> {
  const pair = (await generateKeyPair('ES256', { extractable: true })) as CryptoKeyPair;
  const jwk = await exportJWK(pair.publicKey);
  return { pair, jwk, jkt: await calculateJwkThumbprint(jwk) };
}

/** A DPoP proof for the token endpoint made by hand, `claims` over the usual ones. */
export function dpopProof(f: AuthFixture, key: { pair: CryptoKeyPair; jwk: JWK }, claims: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ htm: 'POST', htu: `${f.url}/api/oauth/token`, jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.pair.privateKey as CryptoKey);
}

/** What introspection says of a token, asked by the client it was issued to (RFC 7662). */
export async function introspect(f: AuthFixture, clientId: string, token: string): Promise<Record<string, unknown>> {
  return (await postForm(`${f.url}/api/oauth/introspect`, { token, client_id: clientId })).body;
}
