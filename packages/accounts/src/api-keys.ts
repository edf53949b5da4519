import { displayPrefix, generateCredential, hashCredential, parseCredential, pepperVersion } from '@svc/credentials';
import type { KeyLevel } from '@svc/policy';
import { DEFAULT_KEY_LEVEL } from '@svc/policy';
import { normalizeAllowedIps } from './key-controls.ts';
import { addLive } from './collection-limits.ts';
import type { StoreContext } from './context.ts';
import { invalidate, newId, writeInSlices } from './context.ts';
import { AccountError } from './errors.ts';
import { INVALIDATES, K } from './keys.ts';
import { pepperStatus, rehashKey } from './pepper-status.ts';
import { keepRevokedKey, trimPersonalKeys } from './revoked-records.ts';
import {
  checkNote,
  checkRateLimit,
  deserializeKey,
  RECORD_GRACE_SECONDS,
  USER_KEY_TTL_SECONDS,
  serializeKey,
  type IssuedKey,
  type NewKey,
  type PepperStatus,
} from './api-key-records.ts';
import type { ApiKeyRecord } from './types.ts';

/** API keys of every kind, stored under the keyed hash of their value. */
export class ApiKeyStore {
  private readonly ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.ctx = ctx;
  }

  hash(value: string): string {
    return hashCredential(value, this.ctx.pepper);
  }

  /**
   * The record a clear key value names (revoked and expired ones included): under the current
   * pepper, else under the pepper being retired, in which case the key is re-hashed at once — an
   * alias under the current pepper points at its record — so the next lookup needs only the
   * current pepper (docs/operations.md "Rotating the key pepper").
   */
  async findByValue(value: string): Promise<ApiKeyRecord | null> {
    const current = this.hash(value);
    const rec = await this.findByHash(current);
    if (rec) {
      const version = pepperVersion(this.ctx.pepper);
      // Bookkeeping written again on the next lookup if lost: no replicas' confirmation on the request path.
      if (rec.pepper !== version) await this.ctx.unconfirmed.hset(K.apiKey(rec.hash), 'pepper', version);
      return rec;
    }
    if (!this.ctx.previousPepper) return null;
    const old = await this.findByHash(hashCredential(value, this.ctx.previousPepper));
    if (old) await rehashKey(this.ctx, old, current);
    return old;
  }

  /** Which live keys the current pepper alone can find, and which still need the one being retired (pepper-status.ts). */
  pepperStatus(): Promise<PepperStatus> {
    return pepperStatus(this.ctx);
  }

  async issue(input: NewKey): Promise<IssuedKey> {
    if (input.expiresInSeconds !== undefined && !(Number.isInteger(input.expiresInSeconds) && input.expiresInSeconds > 0)) {
      throw new AccountError('invalid', 'the expiry must be a positive number of seconds');
    }
    checkRateLimit(input.rateLimit ?? null);
    const note = checkNote(input.note ?? '');
    const allowedIps = normalizeAllowedIps(input.allowedIps ?? []);
    const key = generateCredential(input.kind);
    const hash = this.hash(key);
    const now = this.ctx.now();
    const record: ApiKeyRecord = {
      id: newId('key'),
      kind: input.kind,
      hash,
      prefix: displayPrefix(key),
      name: input.name,
      level:
        input.kind === 'project_key' || input.kind === 'legacy_project_key' || input.kind === 'legacy_team_key'
          ? (input.level ?? DEFAULT_KEY_LEVEL)
          : '',
      project: input.project ?? '',
      workspace: input.workspace ?? '',
      userId: input.userId ?? '',
      botId: input.botId ?? '',
      clientId: input.clientId ?? '',
      createdAt: now,
      expiresAt: input.expiresInSeconds ? now + input.expiresInSeconds * 1000 : null,
      revoked: false,
      disabled: false,
      note,
      allowedIps,
      replacedBy: '',
      lastUsedAt: null,
      rateLimit: input.rateLimit ?? null,
      pepper: pepperVersion(this.ctx.pepper),
    };
    // The place under the project's limit first: a refusal leaves nothing behind, and a crash
    // after it holds a place only until the key would have expired.
    if (record.project) await addLive(this.ctx, 'keysPerProject', K.projectLiveKeys(record.project), record.id, record.expiresAt);
    // Record first, then its id index: separate commands (not MULTI), since on Redis Cluster the two
    // keys live in different slots. A crash between them leaves a record no id points to: harmless.
    const ttl = input.expiresInSeconds ? input.expiresInSeconds + RECORD_GRACE_SECONDS : 0;
    await this.ctx.redis.hset(K.apiKey(hash), serializeKey(record));
    if (ttl) await this.ctx.redis.expire(K.apiKey(hash), ttl);
    await (ttl ? this.ctx.redis.set(K.apiKeyById(record.id), hash, 'EX', ttl) : this.ctx.redis.set(K.apiKeyById(record.id), hash));
    if (record.expiresAt !== null && record.kind === 'project_key') await this.ctx.redis.zadd(K.keyExpiries(), record.expiresAt, record.id);
    if (record.project) await this.ctx.redis.sadd(K.projectKeys(record.project), record.id);
    if (record.userId) await this.ctx.redis.sadd(K.userKeys(record.userId), record.id);
    return { id: record.id, key, record };
  }

  /** A project key (svc-) of a level; default EDITOR (docs/contract.md "Credentials"). */
  async createProjectKey(input: {
    project: string;
    level?: KeyLevel;
    name: string;
    expiresInSeconds?: number;
    workspace: string;
    rateLimit?: number | null;
    note?: string;
    allowedIps?: readonly string[];
  }): Promise<IssuedKey> {
    return this.issue({ kind: 'project_key', ...input });
  }

  /**
   * A personal key (svc-user-) valid 30 days. With a clientId, the previous personal keys the user
   * got from that client are revoked first (docs/contract.md "Client profiles", rule 3).
   */
  async createUserKey(input: { userId: string; clientId?: string; name?: string; expiresInSeconds?: number }): Promise<IssuedKey> {
    if (input.clientId) await this.revokeUserKeys(input.userId, input.clientId);
    const issued = await this.issue({
      kind: 'user_key',
      name: input.name ?? 'personal key',
      userId: input.userId,
      ...(input.clientId ? { clientId: input.clientId } : {}),
      expiresInSeconds: input.expiresInSeconds ?? USER_KEY_TTL_SECONDS,
    });
    await trimPersonalKeys(this.ctx, input.userId, this);
    return issued;
  }

  async revokeUserKeys(userId: string, clientId: string): Promise<number> {
    const fromClient = (await this.listForUser(userId)).filter((rec) => rec.clientId === clientId && !rec.revoked);
    for (const rec of fromClient) await this.revoke(rec.id);
    return fromClient.length;
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | null> {
    const h = await this.ctx.redis.hgetall(K.apiKey(hash));
    // An alias (a key re-hashed under a new pepper) names its record; one hop, never a chain.
    const rec = h['alias'] ? await this.ctx.redis.hgetall(K.apiKey(h['alias'])) : h;
    return rec['id'] ? deserializeKey(rec) : null;
  }

  async getById(id: string): Promise<ApiKeyRecord | null> {
    const hash = await this.ctx.redis.get(K.apiKeyById(id));
    return hash ? this.findByHash(hash) : null;
  }

  /**
   * The live record of a clear key value: null when malformed, unknown, revoked or expired. A
   * disabled key is returned (a leak report still revokes it); the gateway refuses it on its own.
   */
  async verify(value: string): Promise<ApiKeyRecord | null> {
    if (!parseCredential(value)) return null;
    const rec = await this.findByValue(value);
    if (!rec || rec.revoked || (rec.expiresAt !== null && rec.expiresAt <= this.ctx.now())) return null;
    return rec;
  }

  /** Revokes a key; every gateway refuses it within a second (pub/sub invalidation). */
  async revoke(id: string): Promise<ApiKeyRecord> {
    const hash = await this.ctx.redis.get(K.apiKeyById(id));
    if (!hash) throw new AccountError('not_found', `no key ${id}`);
    await this.ctx.redis.hset(K.apiKey(hash), 'revoked', '1');
    await invalidate(this.ctx, INVALIDATES.key(hash));
    const rec = await this.findByHash(hash);
    if (!rec) throw new AccountError('not_found', `no key ${id}`);
    if (rec.project) {
      await this.ctx.redis.zrem(K.projectLiveKeys(rec.project), id);
      await keepRevokedKey(this.ctx, rec.project, id, this.ctx.now());
    }
    return rec;
  }

  /**
   * Sets when a key stops working (a roll's overlap ends; docs/contract.md "Credentials"): never
   * later than an expiry it already has. Every gateway drops its cached answer for the key.
   */
  async expireAt(id: string, at: number): Promise<ApiKeyRecord> {
    const hash = await this.ctx.redis.get(K.apiKeyById(id));
    const rec = hash ? await this.findByHash(hash) : null;
    if (!hash || !rec) throw new AccountError('not_found', `no key ${id}`);
    const expiresAt = rec.expiresAt === null ? at : Math.min(rec.expiresAt, at);
    // An end chosen by a roll is no surprise: no expiry warning for it (docs/management.md "Expiry").
    await this.ctx.redis.hset(K.apiKey(hash), { expiresAt: String(expiresAt), expiryWarned: 'roll' });
    if (rec.kind === 'project_key') await this.ctx.redis.zadd(K.keyExpiries(), expiresAt, id);
    if (rec.project && !rec.revoked) await this.ctx.redis.zadd(K.projectLiveKeys(rec.project), 'XX', expiresAt, id);
    await invalidate(this.ctx, INVALIDATES.key(hash));
    return { ...rec, expiresAt };
  }

  /**
   * Marks a key's expiry `what` ('warned', 'noted') once: true for the one caller that marked it,
   * so replicas sweeping together send one mail and write one audit entry.
   */
  async markExpiry(id: string, what: 'warned' | 'noted'): Promise<boolean> {
    const hash = await this.ctx.redis.get(K.apiKeyById(id));
    if (!hash) return false;
    return (await this.ctx.redis.hsetnx(K.apiKey(hash), what === 'warned' ? 'expiryWarned' : 'expiryNoted', String(this.ctx.now()))) === 1;
  }

  /**
   * A person's personal keys (svc-user-), newest first, revoked and expired ones included: at most
   * PERSONAL_KEYS_KEPT (and the one being made). The id of a key whose record ended leaves the index.
   */
  async listForUser(userId: string): Promise<ApiKeyRecord[]> {
    return (await this.readIndex(K.userKeys(userId))).reverse();
  }

  async setLevel(id: string, level: KeyLevel): Promise<void> {
    await this.setField(id, 'level', level, true);
  }

  /** A key's own requests-per-minute limit (null: the plan's alone); gateways drop their cached answer. */
  async setRateLimit(id: string, limit: number | null): Promise<void> {
    checkRateLimit(limit);
    await this.setField(id, 'rateLimit', limit === null ? '' : String(limit), true);
  }

  /** Disables (or enables again) a key: every gateway refuses it within a second, as a revoked one. */
  async setDisabled(id: string, disabled: boolean): Promise<void> {
    await this.setField(id, 'disabled', disabled ? '1' : '0', true);
  }

  /** A key's note (MAX_KEY_NOTE characters at most; empty clears it). The gateway never reads it. */
  async setNote(id: string, note: string): Promise<string> {
    const text = checkNote(note);
    await this.setField(id, 'note', text, false);
    return text;
  }

  /** A key's IP allow-list (empty: anywhere), in the record the gateway already reads: the check costs no Redis command. */
  async setAllowedIps(id: string, entries: readonly string[]): Promise<string[]> {
    const cidrs = normalizeAllowedIps(entries);
    await this.setField(id, 'allowedIps', cidrs.join(','), true);
    return cidrs;
  }

  /** Records which key a roll made in this one's place (the listing says "replaced by"). */
  async markReplaced(id: string, by: string): Promise<void> {
    await this.setField(id, 'replacedBy', by, false);
  }

  /** One field of a key's record; `gateways`: every gateway drops its cached answer for the key (as on revocation). */
  private async setField(id: string, field: string, value: string, gateways: boolean): Promise<void> {
    const hash = await this.ctx.redis.get(K.apiKeyById(id));
    if (!hash) throw new AccountError('not_found', `no key ${id}`);
    await this.ctx.redis.hset(K.apiKey(hash), field, value);
    if (gateways) await invalidate(this.ctx, INVALIDATES.key(hash));
  }

  /**
   * A project's keys, oldest first: its live keys (COLLECTION_LIMITS.keysPerProject), its last
   * REVOKED_KEYS_KEPT revoked, and expired ones until their record ends (expiry + 7 days); the id
   * of a key whose record ended leaves the index here.
   */
  async listForProject(project: string): Promise<ApiKeyRecord[]> {
    return this.readIndex(K.projectKeys(project));
  }

  /** The records an index of key ids names, oldest first; the ids whose record ended leave it. */
  private async readIndex(index: string): Promise<ApiKeyRecord[]> {
    const ids = await this.ctx.redis.smembers(index);
    const recs = await Promise.all(ids.map((id) => this.getById(id)));
    const ended = ids.filter((_, i) => recs[i] === null);
    if (ended.length > 0) await this.ctx.redis.srem(index, ...ended);
    return recs.filter((r): r is ApiKeyRecord => r !== null).sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Records last use for many keys at once (the gateway batches these off the request path). */
  async touch(lastUsed: ReadonlyMap<string, number>): Promise<void> {
    if (lastUsed.size === 0) return;
    // One command per key (written together by a batching client): a MULTI or pipeline would span slots on Cluster.
    // Not waited for (docs/operations.md "Write durability"): a WAIT that runs out holds the request
    // commands queued behind it on the same connection. A slice at a time, for the same reason.
    await writeInSlices([...lastUsed], ([hash, at]) => this.ctx.unconfirmed.hset(K.apiKey(hash), 'lastUsedAt', String(at)));
  }
}
