/**
 * The provider's signing keys (ID tokens, JWKS at /api/oauth/jwks). Created once and kept in
 * Redis, so every replica and every restart signs with the same key.
 */
import type { Redis } from '@svc/accounts';
import { exportJWK, generateKeyPair } from 'jose';
import type { JWKS } from 'oidc-provider';
import { OK } from '../store/redis-keys.ts';

export async function loadSigningKeys(redis: Redis): Promise<JWKS> {
  const existing = await redis.get(OK.jwks());
  if (existing) return JSON.parse(existing) as JWKS;
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), alg: 'ES256', use: 'sig', kid: `es256-${Date.now().toString(36)}` };
  // NX: when two replicas start at once, the first key written wins and both use it.
  await redis.set(OK.jwks(), JSON.stringify({ keys: [jwk] }), 'NX');
  return JSON.parse((await redis.get(OK.jwks())) ?? '{"keys":[]}') as JWKS;
}
