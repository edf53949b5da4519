/**
 * A service account's OAuth client (docs/auth-service.md "Client credentials"): the public keys it
 * signs its client assertions with (RFC 7523 §2.2, `private_key_jwt`), given inline as a JWKS or
 * as an https JWKS URL the auth-service fetches through its guarded outgoing fetch. The client id
 * is the service account's id; the client exists while the account is live and has keys.
 */
import { createPublicKey } from 'node:crypto';
import { isSpecialUseHost } from '@svc/bounds/special-use.ts';
import type { StoreContext } from './context.ts';
import { invalidate } from './context.ts';
import { AccountError } from './errors.ts';
import { INVALIDATES, K } from './keys.ts';
import { recentMemo } from './recent-memo.ts';
import { SERVICE_ACCOUNT_KEY_LIMITS } from './service-account-key-limits.ts';

/** Signature algorithms a key may name (`alg`), the ones oidc-provider verifies assertions with. */
const ALGORITHMS = new Set(['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA', 'Ed25519']);
/** JWK members that hold private or symmetric key material (RFC 7518 §6): never accepted. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

export type PublicJwk = Record<string, unknown> & { kty: string; kid: string };
export type ServiceAccountKeys = { jwks: { keys: PublicJwk[] } } | { jwksUri: string };

/** The OAuth client metadata (RFC 7591 §2) of a service account, as oidc-provider reads a client. */
export interface ServiceAccountClientMetadata {
  client_id: string;
  client_name: string;
  token_endpoint_auth_method: 'private_key_jwt';
  grant_types: ['client_credentials'];
  response_types: [];
  redirect_uris: [];
  jwks?: { keys: PublicJwk[] };
  jwks_uri?: string;
}

/** Why a set of keys is refused, or null. */
export function serviceAccountKeysProblem(input: unknown): string | null {
  if (typeof input !== 'object' || input === null) return 'give either jwks (a JWK Set) or jwks_uri';
  const o = input as Record<string, unknown>;
  if ('jwks' in o === 'jwksUri' in o) return 'give either jwks (a JWK Set) or jwks_uri, not both';
  if ('jwksUri' in o) return jwksUriProblem(o['jwksUri']);
  return jwksProblem(o['jwks']);
}

function jwksUriProblem(uri: unknown): string | null {
  if (typeof uri !== 'string' || uri.length > SERVICE_ACCOUNT_KEY_LIMITS.maxJwksUriLength)
    return `jwks_uri must be a URL of at most ${SERVICE_ACCOUNT_KEY_LIMITS.maxJwksUriLength} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'jwks_uri is not a URL';
  }
  if (url.protocol !== 'https:') return 'jwks_uri must be an https URL';
  if (url.username || url.password || url.hash) return 'jwks_uri must not carry credentials or a fragment';
  // The guarded fetch refuses these before connecting (docs/security.md "Unverified clients and
  // hostile input"): a key set there could never be read, so it is refused when saved.
  if (isSpecialUseHost(url))
    return 'jwks_uri must not point at a loopback, link-local, private or other special-use address: svc never fetches from one';
  return null;
}

function jwksProblem(jwks: unknown): string | null {
  if (JSON.stringify(jwks ?? null).length > SERVICE_ACCOUNT_KEY_LIMITS.maxJwksBytes)
    return `jwks must be at most ${SERVICE_ACCOUNT_KEY_LIMITS.maxJwksBytes} bytes of JSON`;
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) return 'jwks must be a JWK Set: {"keys": [...]} with at least one key';
  if (keys.length > SERVICE_ACCOUNT_KEY_LIMITS.maxKeys) return `jwks holds at most ${SERVICE_ACCOUNT_KEY_LIMITS.maxKeys} keys`;
  const kids = new Set<string>();
  for (const [i, key] of keys.entries()) {
    if (typeof key !== 'object' || key === null || Array.isArray(key)) return `jwks.keys[${i}] is not a JWK`;
    const k = key as Record<string, unknown>;
    const kid = k['kid'];
    if (typeof kid !== 'string' || kid.length === 0 || kid.length > SERVICE_ACCOUNT_KEY_LIMITS.maxKidLength)
      return `jwks.keys[${i}].kid must be 1-${SERVICE_ACCOUNT_KEY_LIMITS.maxKidLength} characters`;
    if (kids.has(kid)) return `jwks.keys[${i}].kid ${JSON.stringify(kid)} appears twice`;
    kids.add(kid);
    if (PRIVATE_MEMBERS.some((m) => m in k)) return `jwks.keys[${i}] holds private or symmetric key material: give the public key only`;
    if (k['kty'] !== 'EC' && k['kty'] !== 'RSA' && k['kty'] !== 'OKP') return `jwks.keys[${i}].kty must be EC, RSA or OKP`;
    if (k['alg'] !== undefined && !ALGORITHMS.has(String(k['alg'])))
      return `jwks.keys[${i}].alg ${JSON.stringify(k['alg'])} is not supported`;
    if (k['use'] !== undefined && k['use'] !== 'sig') return `jwks.keys[${i}].use must be sig`;
    try {
      createPublicKey({ key: k as never, format: 'jwk' });
    } catch {
      return `jwks.keys[${i}] is not a valid public key`;
    }
  }
  return null;
}

/** Keeps only the members of a public JWK (no `x5c` chains or extra members: they count against nothing). */
function publicMembers(key: Record<string, unknown>): PublicJwk {
  const keep = ['kty', 'kid', 'alg', 'use', 'crv', 'x', 'y', 'n', 'e'];
  return Object.fromEntries(keep.filter((m) => key[m] !== undefined).map((m) => [m, key[m]])) as PublicJwk;
}

/**
 * Whether stored keys, as read back, pass the checks they passed when set (each key parsed as a
 * public key: a value written to Redis by other means is refused). Every client-credentials grant
 * reads them, so the verdicts on the 256 texts read last are kept (`recentMemo`: the text is the
 * key, so keys that changed are checked anew). Each read still parses its own copy.
 */
const storedKeysValid = recentMemo(
  (text: string): boolean => {
    try {
      return serviceAccountKeysProblem(JSON.parse(text)) === null;
    } catch {
      return false;
    }
  },
  { max: 256, maxKeyLength: SERVICE_ACCOUNT_KEY_LIMITS.maxJwksBytes },
);

export class ServiceAccountClientStore {
  private readonly ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.ctx = ctx;
  }

  /** Replaces a service account's keys (validated; throws `invalid` naming the problem). */
  async setKeys(botId: string, input: ServiceAccountKeys): Promise<ServiceAccountKeys> {
    const problem = serviceAccountKeysProblem(input);
    if (problem) throw new AccountError('invalid', problem);
    const stored: ServiceAccountKeys =
      'jwksUri' in input ? { jwksUri: input.jwksUri } : { jwks: { keys: input.jwks.keys.map((k) => publicMembers(k)) } };
    await this.ctx.redis.set(K.botClientKeys(botId), JSON.stringify(stored));
    await invalidate(this.ctx, INVALIDATES.bot(botId));
    return stored;
  }

  async getKeys(botId: string): Promise<ServiceAccountKeys | null> {
    const text = await this.ctx.redis.get(K.botClientKeys(botId));
    return text && storedKeysValid(text) ? (JSON.parse(text) as ServiceAccountKeys) : null;
  }

  /** Removes the keys: the client stops authenticating at once (its tokens live on until revoked). */
  async removeKeys(botId: string): Promise<boolean> {
    const removed = (await this.ctx.redis.del(K.botClientKeys(botId))) > 0;
    await invalidate(this.ctx, INVALIDATES.bot(botId));
    return removed;
  }

  /**
   * The client metadata of a live service account with keys, or null: the auth-service's storage
   * adapter answers oidc-provider's client lookups for service account ids with it.
   */
  async clientMetadata(botId: string): Promise<ServiceAccountClientMetadata | null> {
    const [bot, keys] = await Promise.all([this.ctx.redis.hmget(K.bot(botId), 'name', 'workspace'), this.getKeys(botId)]);
    const [name, workspace] = bot;
    if (!keys || !name || !workspace) return null;
    if (!(await this.ctx.redis.sismember(K.workspaceLiveBots(workspace), botId))) return null;
    return serviceAccountClientMetadata(botId, name, keys);
  }
}

/** The client metadata of service account `botId`, named `name`, with `keys` (that it is live is the caller's to check). */
export function serviceAccountClientMetadata(botId: string, name: string, keys: ServiceAccountKeys): ServiceAccountClientMetadata {
  return {
    client_id: botId,
    client_name: name,
    token_endpoint_auth_method: 'private_key_jwt',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    ...('jwksUri' in keys ? { jwks_uri: keys.jwksUri } : { jwks: keys.jwks }),
  };
}
