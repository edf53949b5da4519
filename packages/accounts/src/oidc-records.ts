/**
 * The one codec of the auth-service's oidc-provider records in the shared Redis
 * (docs/redis-schema.md "auth-service (oidc-provider)"): where each record lives, what the fields
 * our code reads hold, and the one place their JSON is parsed. The auth-service's storage adapter
 * writes and reads records through it; the gateway's OAuth verifier and the OAuth grant store read
 * them through it; nothing else parses a record (tests/repo/one-owner.unit.test.ts).
 *
 * Record ids are token values (`svc_at_...`, refresh tokens, device and authorization codes, session
 * ids), so keys carry the SHA-256 of the id, never the id itself: a key listing, a slow log or a
 * MONITOR trace does not hand out live tokens. The ids are high-entropy random values, so an
 * unkeyed digest suffices.
 *
 * A record is a hash `{payload, consumed}`: `payload` is the JSON oidc-provider hands its adapter,
 * `consumed` the epoch second it was used (codes, refresh tokens). A parse function keeps each field
 * it knows only when it has the expected type, and answers null for a payload that is not a JSON
 * object: a damaged record reads as absent, never as a thrown error.
 */
import { hash } from 'node:crypto';
import type { Redis } from './redis.ts';
import { recentMemo } from './recent-memo.ts';

const OIDC_PREFIX = 'svc:oidc:';
/** The hash field holding a record's JSON payload. */
export const OIDC_PAYLOAD_FIELD = 'payload';
/** The hash field holding the epoch second a record was consumed. */
export const OIDC_CONSUMED_FIELD = 'consumed';

/**
 * base64url SHA-256 of a record id. A grant takes the digest of its refresh token (and of each token
 * it issues) in several steps, the claim, the read, the consumption, the kept pair: the digests of
 * the 512 ids asked for last are kept (about 100 KB). Ours are about 50 characters; a client may
 * send anything up to the body limit, and ids longer than 128 are never kept.
 */
export const oidcDigest = recentMemo((id: string) => hash('sha256', id, 'base64url'), { max: 512, maxKeyLength: 128 });

/** The hash holding one oidc-provider model instance: {payload (JSON), consumed (epoch s)}. */
export function oidcRecordKey(model: string, id: string): string {
  return oidcRecordKeyByDigest(model, oidcDigest(id));
}

/**
 * The model whose keys a model's records share. Client-credentials tokens are `svc_at_` access
 * tokens too (docs/auth-service.md "Client credentials"): kept beside the AccessTokens, one read
 * tells a gateway what any `svc_at_` value is; the record's `kind` tells them apart.
 */
export function oidcStoredModel(model: string): string {
  return model === 'ClientCredentials' ? 'AccessToken' : model;
}

/** The same record when only the digest of its id is known (lookups store digests). */
export function oidcRecordKeyByDigest(model: string, digest: string): string {
  return `${OIDC_PREFIX}${oidcStoredModel(model)}:${digest}`;
}

/** A session uid -> the digest of its Session record id (the gateway checks a session still exists). */
export function oidcSessionUidKey(uid: string): string {
  return `${OIDC_PREFIX}session-uid:${uid}`;
}

/** A normalised device user code (`WDJB4821`) -> the digest of its DeviceCode record id. */
export function oidcUserCodeKey(userCode: string): string {
  return `${OIDC_PREFIX}user-code:${userCode}`;
}

/** The record keys of one grant (its tokens and codes): deleted together when the grant is revoked. */
export function oidcGrantKeysKey(grantId: string): string {
  return `${OIDC_PREFIX}grant-keys:${grantId}`;
}

/**
 * The grants delegated from the tokens of a grant (set of grant ids; RFC 8693 token exchange,
 * docs/auth-service.md "Delegation (token exchange)"): revoking the grant revokes them.
 */
export function oidcGrantDelegationsKey(grantId: string): string {
  return `${OIDC_PREFIX}grant-delegations:${grantId}`;
}

/**
 * The live grants one grant's delegations set may hold (docs/decisions.md "Delegation (token
 * exchange)"): how many tokens may be delegated from one grant's tokens at once, which is what
 * stops an agent that loops on the exchange.
 */
export const DELEGATIONS_PER_GRANT_MAX = 50;

/** The grant ids a person has given (set): the account page's "authorized apps". */
export function oidcAccountGrantsKey(accountId: string): string {
  return `${OIDC_PREFIX}account-grants:${accountId}`;
}

/**
 * When the person's apps last used their grants (hash: grant id → Unix ms), written by the gateways
 * a few seconds after the use (docs/management.md "Authorized apps"); kept GRANT_USE_KEPT_SECONDS
 * after the last write, and a field of a grant that ended is never read.
 */
export function oidcAccountGrantUseKey(accountId: string): string {
  return `${OIDC_PREFIX}account-grant-use:${accountId}`;
}

/** How long a person's apps' last uses are kept after the last of them: longer than any grant lives. */
export const GRANT_USE_KEPT_SECONDS = 90 * 24 * 3600;

/** A record's payload as oidc-provider hands it to its adapter: a JSON object. */
export type OidcPayload = Record<string, unknown>;

/** A record as stored: its payload and, once used, the epoch second it was consumed. */
export interface OidcStored<T> {
  payload: T;
  consumed: number | null;
}

/** An AccessToken record (oidc-provider lib/models/access_token.js), the fields the gateway checks. */
export interface AccessTokenRecord {
  kind: 'AccessToken';
  accountId: string;
  clientId: string;
  grantId: string;
  /** Epoch seconds. */
  exp: number;
  aud?: string | string[];
  scope?: string;
  expiresWithSession?: boolean;
  sessionUid?: string;
  /** DPoP (RFC 9449) and mTLS (RFC 8705) bindings. */
  jkt?: string;
  'x5t#S256'?: string;
  /**
   * A delegated token's acting clients, read from its RFC 8693 §4.1 `act` claim: the current
   * actor first, the client the person authorized last. Absent for a token that was not delegated.
   */
  chain?: string[];
  /** A delegated token's parent: the digest of the access token it was exchanged for (oidcDigest). */
  parent?: string;
}

/**
 * The most times a person's access token may be delegated down one line (docs/decisions.md
 * "Delegation (token exchange)"): a chain names at most this many actors after the client the
 * person authorized.
 */
export const DELEGATION_MAX_DEPTH = 3;

/** The claim of a delegated token's extra claims that names its parent token (by digest). */
const PARENT_CLAIM = 'svc_parent';

/** RFC 8693 §4.1 `act`: the actor (an OAuth client, by its id as `sub`), prior actors nested. */
export interface ActClaim {
  sub: string;
  act?: ActClaim;
}

/** The `act` claim naming `chain` (current actor first), nested as RFC 8693 §4.1 shows. */
export function actClaim(chain: readonly string[]): ActClaim {
  const [sub, ...prior] = chain;
  if (sub === undefined) throw new Error('a delegation chain names at least one actor');
  return prior.length ? { sub, act: actClaim(prior) } : { sub };
}

/**
 * The chain an `act` claim names, current actor first; null for a claim this codec did not write:
 * not nested objects each naming one `sub`, or longer than DELEGATION_MAX_DEPTH actors after the
 * first client.
 */
export function actorChain(act: unknown): string[] | null {
  const chain: string[] = [];
  for (let at = act; at !== undefined; at = (at as OidcPayload)['act']) {
    if (!isObject(at) || typeof at['sub'] !== 'string' || at['sub'] === '') return null;
    if (chain.length > DELEGATION_MAX_DEPTH || Object.keys(at).some((k) => k !== 'sub' && k !== 'act')) return null;
    chain.push(at['sub']);
  }
  return chain.length ? chain : null;
}

/** The extra claims of a delegated access token: its `act` chain and its parent's digest. */
export function delegationClaims(chain: readonly string[], parentDigest: string): OidcPayload {
  return { act: actClaim(chain), [PARENT_CLAIM]: parentDigest };
}

/**
 * A ClientCredentials record (lib/models/client_credentials.js): a token a service account's
 * client obtained for itself; its client id is the service account's id.
 */
export interface ClientCredentialsRecord {
  kind: 'ClientCredentials';
  clientId: string;
  /** Epoch seconds. */
  exp: number;
  aud?: string | string[];
  scope?: string;
  jkt?: string;
  'x5t#S256'?: string;
}

/** A Grant record (lib/models/grant.js): who gave which client access to which resources. */
export interface GrantRecord {
  accountId?: string;
  clientId?: string;
  /** Epoch seconds. */
  iat?: number;
  exp?: number;
  /** Resource indicator (`<base>/mcp/<slug>`) -> the scope granted for it. */
  resources: Record<string, string>;
}

/** A registered Client record (RFC 7591 metadata as the adapter stores it). */
export interface ClientRecord {
  client_name?: string;
}

/** A Session record (lib/models/session.js). */
export interface SessionRecord {
  uid?: string;
  accountId?: string;
}

/** A DeviceCode record (lib/models/device_code.js): whose it is and whether it was answered. */
export interface DeviceCodeRecord {
  clientId?: string;
  accountId?: string;
  /** Set when the person denied the request. */
  error?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const isObject = (v: unknown): v is OidcPayload => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Only the keys whose value is defined: the records' optional fields stay absent, not `undefined`. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** The payload of a record: a JSON object, or null when the text is not one. */
export function parseOidcPayload(text: string): OidcPayload | null {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** The text stored for a payload. */
export function encodeOidcPayload(payload: OidcPayload): string {
  return JSON.stringify(payload);
}

/**
 * An AccessToken naming its person, client and grant, with an expiry; null for anything else. A
 * delegation it carries (`extra`: `act` and its parent, both or neither) must read whole: a token
 * whose chain cannot be read is refused, never taken for an undelegated one.
 */
export function parseAccessToken(p: OidcPayload): AccessTokenRecord | null {
  const accountId = str(p['accountId']);
  const clientId = str(p['clientId']);
  const grantId = str(p['grantId']);
  const exp = num(p['exp']);
  if (p['kind'] !== 'AccessToken' || !accountId || !clientId || !grantId || exp === undefined) return null;
  const extra = isObject(p['extra']) ? p['extra'] : {};
  const chain = extra['act'] === undefined ? undefined : actorChain(extra['act']);
  const parent = extra[PARENT_CLAIM];
  if (chain === null || (chain === undefined) !== (parent === undefined) || (parent !== undefined && !str(parent))) return null;
  if (chain && chain[0] !== clientId) return null;
  const aud = p['aud'];
  return defined({
    kind: 'AccessToken' as const,
    accountId,
    clientId,
    grantId,
    exp,
    aud:
      typeof aud === 'string' || (Array.isArray(aud) && aud.every((a) => typeof a === 'string')) ? (aud as string | string[]) : undefined,
    scope: str(p['scope']),
    expiresWithSession: typeof p['expiresWithSession'] === 'boolean' ? p['expiresWithSession'] : undefined,
    sessionUid: str(p['sessionUid']),
    jkt: str(p['jkt']),
    'x5t#S256': str(p['x5t#S256']),
    chain,
    parent: str(parent),
  });
}

/** A ClientCredentials token naming its client, with an expiry; null for anything else. */
function parseClientCredentials(p: OidcPayload): ClientCredentialsRecord | null {
  const clientId = str(p['clientId']);
  const exp = num(p['exp']);
  if (p['kind'] !== 'ClientCredentials' || !clientId || exp === undefined) return null;
  const aud = p['aud'];
  return defined({
    kind: 'ClientCredentials' as const,
    clientId,
    exp,
    aud:
      typeof aud === 'string' || (Array.isArray(aud) && aud.every((a) => typeof a === 'string')) ? (aud as string | string[]) : undefined,
    scope: str(p['scope']),
    jkt: str(p['jkt']),
    'x5t#S256': str(p['x5t#S256']),
  });
}

export function parseGrant(p: OidcPayload): GrantRecord {
  // No prototype: a resource named `constructor` or `__proto__` is just a key.
  const resources = Object.create(null) as Record<string, string>;
  if (isObject(p['resources']))
    for (const [r, scope] of Object.entries(p['resources'])) if (typeof scope === 'string') resources[r] = scope;
  return defined({ accountId: str(p['accountId']), clientId: str(p['clientId']), iat: num(p['iat']), exp: num(p['exp']), resources });
}

function parseClient(p: OidcPayload): ClientRecord {
  return defined({ client_name: str(p['client_name']) });
}

export function parseSession(p: OidcPayload): SessionRecord {
  return defined({ uid: str(p['uid']), accountId: str(p['accountId']) });
}

function parseDeviceCode(p: OidcPayload): DeviceCodeRecord {
  return defined({ clientId: str(p['clientId']), accountId: str(p['accountId']), error: str(p['error']) });
}

/** Reads the record at `key` (from oidcRecordKey / oidcRecordKeyByDigest); null when absent or unreadable. */
export async function readOidcRecord(redis: Redis, key: string): Promise<OidcStored<OidcPayload> | null> {
  const h = await redis.hgetall(key);
  const payload = h[OIDC_PAYLOAD_FIELD] ? parseOidcPayload(h[OIDC_PAYLOAD_FIELD]) : null;
  if (!payload) return null;
  const consumed = h[OIDC_CONSUMED_FIELD] ? Number(h[OIDC_CONSUMED_FIELD]) : null;
  return { payload, consumed };
}

/** Reads only the payload of the record at `key` (one HGET); null when absent or unreadable. */
async function readPayload(redis: Redis, key: string): Promise<OidcPayload | null> {
  const text = await redis.hget(key, OIDC_PAYLOAD_FIELD);
  return text ? parseOidcPayload(text) : null;
}

/** Typed reads of the records, for the services and stores outside the provider. */
export const oidcRecords = {
  /**
   * The AccessToken or ClientCredentials token whose value is `token` (one HGETALL: both kinds
   * share their keys, oidcStoredModel); null for anything else.
   */
  async accessToken(redis: Redis, token: string): Promise<OidcStored<AccessTokenRecord | ClientCredentialsRecord> | null> {
    const stored = await readOidcRecord(redis, oidcRecordKey('AccessToken', token));
    const record = stored ? (parseAccessToken(stored.payload) ?? parseClientCredentials(stored.payload)) : null;
    return stored && record ? { payload: record, consumed: stored.consumed } : null;
  },
  /** A person's AccessToken known by the digest of its value (a delegated token's parent); null for anything else. */
  async accessTokenByDigest(redis: Redis, digest: string): Promise<OidcStored<AccessTokenRecord> | null> {
    const stored = await readOidcRecord(redis, oidcRecordKeyByDigest('AccessToken', digest));
    const record = stored ? parseAccessToken(stored.payload) : null;
    return stored && record ? { payload: record, consumed: stored.consumed } : null;
  },
  async grant(redis: Redis, grantId: string): Promise<GrantRecord | null> {
    const p = await readPayload(redis, oidcRecordKey('Grant', grantId));
    return p ? parseGrant(p) : null;
  },
  /** A dynamically registered client (first-party and CIMD clients have no record). */
  async client(redis: Redis, clientId: string): Promise<ClientRecord | null> {
    const p = await readPayload(redis, oidcRecordKey('Client', clientId));
    return p ? parseClient(p) : null;
  },
  async sessionByDigest(redis: Redis, digest: string): Promise<SessionRecord | null> {
    const p = await readPayload(redis, oidcRecordKeyByDigest('Session', digest));
    return p ? parseSession(p) : null;
  },
  async deviceCode(redis: Redis, deviceCode: string): Promise<OidcStored<DeviceCodeRecord> | null> {
    const stored = await readOidcRecord(redis, oidcRecordKey('DeviceCode', deviceCode));
    return stored ? { payload: parseDeviceCode(stored.payload), consumed: stored.consumed } : null;
  },
};
