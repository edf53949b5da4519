/**
 * oidc-provider's storage adapter over the shared Redis (interface: oidc-provider 9
 * `example/my_adapter.js`). One hash per model instance, a set per grant of the keys to delete
 * on revokeByGrantId, lookup keys for user codes and session uids. No MULTI or Lua across keys,
 * so it runs on Redis Cluster too; an operation's commands are sent together, not one after
 * another (docs/auth-service.md "Storage round trips"). Every revocation, destruction or consumption of a token or
 * grant is PUBLISHed on INVALIDATION_CHANNEL, so every gateway replica drops its cached answer
 * at once (docs/contract.md "Credentials": revocation within one second). A single-use value is
 * claimed with one atomic write: a ReplayDetection find() claims its value, a consume() claims its
 * record, the upsert of a device code confirmed at /device claims its user code, and a second
 * caller is refused (single-use.ts; docs/security.md "Single-use values").
 *
 * oidc-provider stores dynamically registered clients (and their registration access tokens)
 * without a lifetime. Here they get one: docs/contract.md "Dynamic registration limits", a
 * registered client with no live grant for 30 days is deleted. A client lives CLIENT_IDLE_SECONDS
 * from its registration, and each Grant saved for it extends that to its Grant's end plus
 * CLIENT_IDLE_SECONDS.
 */
import type { OAuthGrantStore, Redis } from '@svc/accounts';
import type { ServiceAccountClientMetadata } from '@svc/accounts';
import {
  addToRecordSet,
  consumeOidcRecord,
  INVALIDATES,
  INVALIDATION_CHANNEL,
  oidcDigest,
  oidcStoredModel,
  writeOidcRecord,
} from '@svc/accounts';
import { parseCredential } from '@svc/credentials';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { runScript, script } from '@svc/limits';
import { readProviderRecord } from '../store/provider-records.ts';
import { OK } from '../store/redis-keys.ts';
import { addBehind, readOnce, writeBehind, writesLanded } from '../store/request-storage.ts';
import { claimReplay, claimUserCode, confirmsUserCode, consumeRefused, keepReplay, REPLAY_MODEL, REVOKES_ON_REUSE } from './single-use.ts';

/** Models whose records a gateway may have cached an answer about. */
const WATCHED = new Set(['AccessToken', 'ClientCredentials', 'RefreshToken', 'Grant', 'Session', 'AuthorizationCode', 'DeviceCode']);

/** How long a registered client is kept after its last grant ends (or after registration). */
export const CLIENT_IDLE_SECONDS = 30 * 86_400;
/** Models oidc-provider saves without a lifetime that must not live forever. */
const CLIENT_RECORDS = new Set(['Client', 'RegistrationAccessToken']);
/** KEYS[1]; ARGV[1] seconds: the key's lifetime is raised to at least that, never lowered. */
const EXTEND = script(
  `if redis.call('TTL', KEYS[1]) ~= -2 and redis.call('TTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return 0`,
);

/** Token kinds whose value is one of our checksummed credential formats (see create-provider.ts). */
const FORMATTED: Record<string, 'access_token' | 'refresh_token'> = {
  AccessToken: 'access_token',
  ClientCredentials: 'access_token',
  RefreshToken: 'refresh_token',
};
/**
 * Models whose upsert inside a token request is sent and not awaited in place: the response waits
 * for it (store/request-storage.ts settleWrites). These are what a grant issues; nothing in the
 * request reads them back before its response but on the same connection, after the write.
 */
const WRITTEN_BEHIND = new Set(['AccessToken', 'ClientCredentials', 'RefreshToken', REPLAY_MODEL]);
/** Service account ids (`bot_...`) are the client ids of their OAuth clients (docs/auth-service.md "Client credentials"). */
const SERVICE_ACCOUNT_CLIENT = /^bot_[A-Za-z0-9_-]{1,64}$/;

export interface AdapterDeps {
  redis: Redis;
  /** Indexes each grant under its person (their "authorized apps") and revokes grants. */
  grants: OAuthGrantStore;
  /** Called after a record stopped being usable (tests observe it; the gateway hears the PUBLISH). */
  onRevoked?: (what: string) => void;
  /** A live service account's OAuth client, looked up by its id (@svc/accounts serviceAccountClients). */
  serviceAccountClient?: (clientId: string) => Promise<ServiceAccountClientMetadata | null>;
}

/**
 * Adds a record to its grant's set. A token issued in a token request joins it with the other
 * tokens the request issues, in one command (store/request-storage.ts).
 */
function addToGrantSet(redis: Redis, model: string, grantId: string, key: string, expiresIn: number): Promise<void> {
  const set = OK.grant(grantId);
  if (!WRITTEN_BEHIND.has(model)) return addToRecordSet(redis, set, key, expiresIn);
  return addBehind(set, key, expiresIn, (members, seconds) => addToRecordSet(redis, set, members, seconds));
}

export function createRedisAdapter(deps: AdapterDeps) {
  const { redis } = deps;

  /** Tells every gateway what stopped being usable (INVALIDATES in @svc/accounts). */
  async function announce(message: string): Promise<void> {
    await redis.publish(INVALIDATION_CHANNEL, message);
    deps.onRevoked?.(message.slice('oauth:'.length));
  }

  return class RedisAdapter implements Adapter {
    readonly model: string;

    constructor(model: string) {
      this.model = model;
    }

    private key(id: string): string {
      return this.model === REPLAY_MODEL ? OK.replay(oidcDigest(id)) : OK.model(this.model, id);
    }

    /** Through the record codec of @svc/accounts (oidc-records.ts); an unreadable record is absent. */
    private read(key: string): Promise<AdapterPayload | undefined> {
      return readProviderRecord(redis, key);
    }

    /**
     * The record and every index of it, sent together (one write on a connection that batches
     * each turn's writes, one round trip) rather than one after another: each piece is one command
     * on one key (the record's script, a set's script), so none spans two keys and it runs on Redis
     * Cluster. What a grant issues in a token request is written behind: the response waits for
     * it (store/request-storage.ts), and a later find, consume or destroy of the request waits
     * first.
     */
    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      if (WRITTEN_BEHIND.has(this.model)) return writeBehind(this.write(id, payload, expiresIn));
      return this.write(id, payload, expiresIn);
    }

    private async write(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      if (this.model === REPLAY_MODEL) return keepReplay(redis, id, expiresIn);
      // Not a plain write but the claim of the user code's confirmation (single-use.ts).
      if (confirmsUserCode(this.model, payload)) await claimUserCode(redis, id, expiresIn);
      const key = this.key(id);
      if (CLIENT_RECORDS.has(this.model) && !(expiresIn > 0)) expiresIn = CLIENT_IDLE_SECONDS;
      const writes = [writeOidcRecord(redis, key, payload, expiresIn)];
      // The grant's set lives as long as its longest-lived member.
      if (payload.grantId) writes.push(addToGrantSet(redis, this.model, payload.grantId, key, expiresIn));
      // A grant keeps its (registered) client alive; static clients have no record, so nothing changes.
      if (this.model === 'Grant' && payload.clientId && expiresIn > 0)
        writes.push(runScript(redis, EXTEND, [OK.model('Client', payload.clientId)], [expiresIn + CLIENT_IDLE_SECONDS]).then(() => {}));
      if (this.model === 'Grant' && payload.accountId) writes.push(deps.grants.index(payload.accountId, id, expiresIn));
      if (payload.userCode) writes.push(setLookup(OK.userCode(payload.userCode), oidcDigest(id), expiresIn));
      if (payload.uid && this.model === 'Session') writes.push(setLookup(OK.sessionUid(payload.uid), oidcDigest(id), expiresIn));
      // A person's provider sessions, so a password reset can end them (docs/auth-service.md "Sessions").
      if (this.model === 'Session' && payload.accountId)
        writes.push(addToRecordSet(redis, OK.accountSessions(payload.accountId), oidcDigest(id), expiresIn));
      await settled(writes);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      // Not a lookup but the claim: "not found" for the one caller that claimed the value.
      if (this.model === REPLAY_MODEL) return claimReplay(redis, id);
      if (this.model === 'Client' && SERVICE_ACCOUNT_CLIENT.test(id)) {
        // Never a registered client: a service account's, built from its keys while it is live.
        const metadata = await deps.serviceAccountClient?.(id);
        return metadata ? (metadata as unknown as AdapterPayload) : undefined;
      }
      const kind = FORMATTED[this.model];
      // A value that is not one of our token formats cannot be stored: no Redis trip.
      if (kind && parseCredential(id)?.kind !== kind) return undefined;
      // A read the request started ahead (oauth/grant-read-ahead.ts) is taken once; otherwise Redis.
      const key = this.key(id);
      const payload = await readOnce(key, async () => (await writesLanded(), this.read(key)));
      // AccessToken and ClientCredentials records share their keys (oidcStoredModel): each model
      // sees only its own kind.
      if (payload && kind === 'access_token' && payload.kind !== this.model) return undefined;
      return payload;
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      const digest = await redis.get(OK.userCode(userCode));
      return digest ? this.read(OK.modelByDigest(this.model, digest)) : undefined;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const digest = await redis.get(OK.sessionUid(uid));
      return digest ? this.read(OK.modelByDigest(this.model, digest)) : undefined;
    }

    /**
     * Claims the record's one use and announces it, in one command (INVALIDATES in @svc/accounts).
     * oidc-provider read `consumed` before calling this; a concurrent request that read the same
     * record gets the error a sequential reuse gets, and for a code its grant is revoked as a
     * sequential reuse revokes it (single-use.ts).
     */
    async consume(id: string): Promise<void> {
      await writesLanded();
      const message = WATCHED.has(this.model) ? INVALIDATES.oauthRecord(oidcStoredModel(this.model), oidcDigest(id)) : null;
      const outcome = await consumeOidcRecord(
        redis,
        this.key(id),
        Math.floor(Date.now() / 1000),
        message ? [INVALIDATION_CHANNEL, message] : undefined,
      );
      if (outcome === 'used' && REVOKES_ON_REUSE.has(this.model)) await this.revokeSourceGrant(id);
      if (outcome !== 'consumed') throw consumeRefused(this.model, outcome);
      if (message) deps.onRevoked?.(message.slice('oauth:'.length));
    }

    /**
     * RFC 6749 §4.1.2: a code used more than once revokes the tokens issued from it. The library
     * does so for a reuse in sequence; a request that lost the consume to a concurrent one does it
     * here: the Grant goes, so the winner's tokens are refused whether they were saved before or
     * after (the gateway and introspection refuse a token whose Grant is gone).
     */
    private async revokeSourceGrant(id: string): Promise<void> {
      const grantId = (await this.read(this.key(id)))?.grantId;
      if (typeof grantId === 'string' && grantId) await this.revokeByGrantId(grantId);
    }

    async destroy(id: string): Promise<void> {
      await writesLanded();
      await redis.del(this.key(id));
      if (WATCHED.has(this.model))
        await announce(
          this.model === 'Grant' ? INVALIDATES.oauthGrant(id) : INVALIDATES.oauthRecord(oidcStoredModel(this.model), oidcDigest(id)),
        );
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await deps.grants.revoke(grantId);
      deps.onRevoked?.(grantId);
    }
  };

  /**
   * Waits for every write, then throws the first failure: a write still in flight when another
   * failed is never left unobserved (and an upsert never reports success before all landed).
   */
  async function settled(writes: Promise<void>[]): Promise<void> {
    const failed = (await Promise.allSettled(writes)).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  async function setLookup(key: string, id: string, expiresIn: number): Promise<void> {
    if (expiresIn > 0) await redis.set(key, id, 'EX', expiresIn);
    else await redis.set(key, id);
  }
}
