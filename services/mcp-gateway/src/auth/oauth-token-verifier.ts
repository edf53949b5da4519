/** Placeholder until the auth-service work lands: no OAuth token is accepted. */
import type { Redis } from '@svc/accounts';
import type { OAuthTokenVerifier } from './oauth-types.ts';

export function createOAuthTokenVerifier(_deps: { redis: Redis; baseUrl: string }): OAuthTokenVerifier {
  return { verify: async () => null };
}
