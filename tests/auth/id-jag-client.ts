/**
 * An enterprise identity provider and an MCP client for the ID-JAG tests (docs/auth-service.md
 * "Enterprise-managed authorization"): a jose key pair standing for the provider's signing key, a
 * public client registered for the RFC 7523 `jwt-bearer` grant, assertions signed with the
 * provider's key, and the token request that presents one.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { PublicJwk } from '@svc/accounts';
import { JWT_BEARER_GRANT } from '@svc/auth-service/oauth/id-jag.ts';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import type { Stack } from '../support/stack.ts';

export interface TestIdp {
  issuer: string;
  key: CryptoKey;
  /** The public keys a workspace trusts the issuer with. */
  jwks: { keys: PublicJwk[] };
}

/** An identity provider `issuer` with a fresh ES256 key (kid `idp-1`). */
export async function testIdp(issuer: string): Promise<TestIdp> {
  const pair = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'idp-1', alg: 'ES256' } as PublicJwk;
  return { issuer, key: pair.privateKey, jwks: { keys: [jwk] } };
}

/** A public client registered for the jwt-bearer grant; its client_id. */
export async function registerIdJagClient(stack: Stack): Promise<string> {
  const reg = await fetch(`${stack.authUrl}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Enterprise agent',
      redirect_uris: ['http://127.0.0.1:9/cb'],
      grant_types: ['authorization_code', 'refresh_token', JWT_BEARER_GRANT],
      token_endpoint_auth_method: 'none',
    }),
  });
  assert.equal(reg.status, 201, await reg.clone().text());
  return ((await reg.json()) as { client_id: string }).client_id;
}

/** An ID-JAG of `idp` for `clientId` at `stack`, the given claims over the defaults (undefined drops one). */
export async function signIdJag(stack: Stack, idp: TestIdp, clientId: string, claims: JWTPayload): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: JWTPayload = {
    iss: idp.issuer,
    aud: stack.authUrl,
    client_id: clientId,
    jti: randomUUID(),
    iat: now,
    exp: now + 120,
    ...claims,
  };
  for (const [k, v] of Object.entries(payload)) if (v === undefined) delete payload[k];
  return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'oauth-id-jag+jwt', kid: 'idp-1' }).sign(idp.key);
}

export interface TokenAnswer {
  status: number;
  body: { access_token?: string; scope?: string; error?: string; error_description?: string };
}

/** The token request presenting `assertion` (RFC 7523 §2.1). */
export async function presentIdJag(
  stack: Stack,
  clientId: string,
  assertion: string,
  extra: Record<string, string> = {},
): Promise<TokenAnswer> {
  const res = await fetch(`${stack.authUrl}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion, client_id: clientId, ...extra }),
  });
  return { status: res.status, body: (await res.json()) as TokenAnswer['body'] };
}
