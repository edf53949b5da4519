/**
 * How long each of oidc-provider's models lives (its `ttl` option, provider/configuration.ts), in
 * seconds: docs/contract.md "Lifetimes and constants". The consent page and the device flow's
 * polling state are bounded by the same numbers.
 */
import { CLIENT_CREDENTIALS_TOKEN_TTL_SECONDS } from './client-credentials.ts';

/** The lifetimes, by oidc-provider's model names. */
export const TTL = {
  /** docs/contract.md "Lifetimes and constants": 24 hours. */
  AccessToken: 86_400,
  RefreshToken: 30 * 86_400,
  /** Outlives its tokens: introspection refuses tokens whose Grant is gone. */
  Grant: 31 * 86_400,
  /** docs/contract.md "Device authorization response": 1800 seconds. */
  DeviceCode: 1_800,
  AuthorizationCode: 120,
  Interaction: 3_600,
  Session: 14 * 86_400,
  /** A service account's token (docs/auth-service.md "Client credentials"): 1 hour. */
  ClientCredentials: CLIENT_CREDENTIALS_TOKEN_TTL_SECONDS,
  /** Only OpenID clients keep an ID token (the device profiles' is dropped): one hour. */
  IdToken: 3_600,
} as const;
