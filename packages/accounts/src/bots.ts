import type { KeyLevel } from '@svc/policy';
import { isKeyLevel } from '@svc/policy';
import type { IssuedKey } from './api-key-records.ts';
import type { ApiKeyStore } from './api-keys.ts';
import { addToSet } from './collection-limits.ts';
import type { StoreContext } from './context.ts';
import { invalidate, newId } from './context.ts';
import { AccountError } from './errors.ts';
import { INVALIDATES, K } from './keys.ts';
import { forgetKey, trimRevokedServiceAccounts } from './revoked-records.ts';
import { runScript, script } from '@svc/limits';
import type { Bot } from './types.ts';
import type { WorkspaceStore } from './workspaces.ts';

/** A service account's new key, and when the key it replaces stops working (null: at once). */
export interface RotatedKey extends IssuedKey {
  oldKeyUntil: number | null;
}

/** The start of the refusal of a rotation that another rotation of the same account got ahead of. */
const ROTATED_MEANWHILE = 'rotated by another request meanwhile';

const revokedAccount = (bot: Bot) =>
  new AccountError(
    'conflict',
    `service account ${bot.name} (${bot.id}) is revoked: it gets no new key; create a new service account instead`,
  );

// KEYS: the service account's record. ARGV: the key id the rotation read, its new key's id. A
// rotation's one write (docs/security.md "Single-use values"): the new key becomes the account's
// only while the key it replaces is still the account's, so of concurrent rotations one names its
// key; 1, or 0 when another rotation got in first.
const SWAP_KEY = script(`
if (redis.call('HGET', KEYS[1], 'keyId') or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'keyId', ARGV[2], 'previousKeyId', ARGV[1])
return 1`);

/** Service accounts (bot/CI): a svc-bot- key with explicit per-project grants. */
export class BotStore {
  private readonly ctx: StoreContext;
  private readonly keys: ApiKeyStore;
  private readonly workspaces: WorkspaceStore;

  constructor(ctx: StoreContext, keys: ApiKeyStore, workspaces: WorkspaceStore) {
    this.ctx = ctx;
    this.keys = keys;
    this.workspaces = workspaces;
  }

  async create(input: { workspace: string; name: string }): Promise<{ bot: Bot; key: IssuedKey }> {
    await this.workspaces.require(input.workspace);
    const id = newId('bot');
    await addToSet(this.ctx, 'serviceAccountsPerWorkspace', K.workspaceLiveBots(input.workspace), id);
    const key = await this.keys.issue({ kind: 'bot_key', name: input.name, workspace: input.workspace, botId: id });
    const bot: Bot = {
      id,
      workspace: input.workspace,
      name: input.name,
      keyId: key.id,
      createdAt: this.ctx.now(),
      grants: {},
      revoked: false,
    };
    await this.ctx.redis.hset(K.bot(id), {
      id,
      workspace: bot.workspace,
      name: bot.name,
      keyId: bot.keyId,
      createdAt: String(bot.createdAt),
    });
    await this.ctx.redis.sadd(K.workspaceBots(input.workspace), id);
    return { bot, key };
  }

  async get(id: string): Promise<Bot | null> {
    const [h, grants] = await Promise.all([this.ctx.redis.hgetall(K.bot(id)), this.ctx.redis.hgetall(K.botGrants(id))]);
    if (!h['id']) return null;
    // Revoked: out of the workspace's live set (migrate fills it for accounts made before it was kept).
    const live = await this.ctx.redis.sismember(K.workspaceLiveBots(h['workspace'] ?? ''), id);
    const g: Record<string, KeyLevel> = {};
    for (const [p, l] of Object.entries(grants)) if (isKeyLevel(l)) g[p] = l;
    return {
      id: h['id'],
      workspace: h['workspace'] ?? '',
      name: h['name'] ?? '',
      keyId: h['keyId'] ?? '',
      createdAt: Number(h['createdAt']),
      grants: g,
      revoked: live === 0,
    };
  }

  /** Grants a bot a level on a project of its own workspace. */
  async grant(id: string, project: string, level: KeyLevel): Promise<void> {
    const bot = await this.get(id);
    if (!bot) throw new AccountError('not_found', `no service account ${id}`);
    const p = await this.workspaces.requireProject(project);
    if (p.workspace !== bot.workspace) {
      throw new AccountError(
        'invalid',
        `project ${project} belongs to workspace ${p.workspace}, not to the service account's workspace ${bot.workspace}`,
      );
    }
    await this.ctx.redis.hset(K.botGrants(id), project, level);
    await invalidate(this.ctx, INVALIDATES.bot(id));
  }

  /** The workspace's service accounts, oldest first. */
  async listForWorkspace(workspace: string): Promise<Bot[]> {
    const ids = await this.ctx.redis.smembers(K.workspaceBots(workspace));
    const bots = await Promise.all(ids.map((id) => this.get(id)));
    return bots.filter((b): b is Bot => b !== null).sort((a, b) => a.createdAt - b.createdAt);
  }

  /**
   * A new key for the service account. The old key keeps working for `overlapSeconds` (never past
   * its own expiry), as a project key's roll does; 0 revokes it at once. A revoked service account
   * stays revoked: no new key is issued to it (AccountError 'conflict'). Of concurrent rotations
   * one is made (SWAP_KEY); every other is refused with 'conflict' (ROTATED_MEANWHILE) and its
   * key, never handed out, is deleted: every key of the account stays named by it.
   */
  async rotateKey(id: string, overlapSeconds = 0): Promise<RotatedKey> {
    const bot = await this.get(id);
    if (!bot) throw new AccountError('not_found', `no service account ${id}`);
    if (bot.revoked) throw revokedAccount(bot);
    const key = await this.keys.issue({ kind: 'bot_key', name: bot.name, workspace: bot.workspace, botId: id });
    if (Number(await runScript(this.ctx.redis, SWAP_KEY, [K.bot(id)], [bot.keyId, key.id])) !== 1) {
      await forgetKey(this.ctx, key.id);
      throw new AccountError('conflict', `${ROTATED_MEANWHILE}: service account ${bot.name} (${bot.id}) has a new key already`);
    }
    // Revoked while this key was issued: it must not outlive the account.
    if (!(await this.ctx.redis.sismember(K.workspaceLiveBots(bot.workspace), id))) {
      await this.keys.revoke(key.id);
      throw revokedAccount(bot);
    }
    let oldKeyUntil: number | null = null;
    const old = bot.keyId ? await this.keys.getById(bot.keyId) : null;
    if (old && !old.revoked) {
      if (overlapSeconds === 0) await this.keys.revoke(old.id);
      else oldKeyUntil = (await this.keys.expireAt(old.id, this.ctx.now() + overlapSeconds * 1000)).expiresAt;
    }
    return { ...key, oldKeyUntil };
  }

  /**
   * Revokes the service account for good: it leaves its workspace's live set first (so no rotation
   * issues it a key after this), then its key and any key still in a rotation's overlap are revoked.
   */
  async revoke(id: string): Promise<void> {
    const bot = await this.get(id);
    if (!bot) throw new AccountError('not_found', `no service account ${id}`);
    // Listed revoked before it leaves the live set: migrate() adds a live account back only after
    // reading it is not listed revoked (migrate.ts), so it never brings this one back.
    await this.ctx.redis.zadd(K.workspaceRevokedBots(bot.workspace), 'NX', this.ctx.now(), id);
    await this.ctx.redis.srem(K.workspaceLiveBots(bot.workspace), id);
    // Read after it left the live set: a rotation that named a key before that is seen here, and
    // one after it finds the account revoked and revokes its own key (rotateKey).
    const [current, previous] = await this.ctx.redis.hmget(K.bot(id), 'keyId', 'previousKeyId');
    for (const keyId of [current ?? '', previous ?? '']) {
      const key = keyId ? await this.keys.getById(keyId) : null;
      if (key && !key.revoked) await this.keys.revoke(key.id);
    }
    // Its OAuth client's tokens are refused by every gateway at once (docs/auth-service.md "Client credentials").
    await invalidate(this.ctx, INVALIDATES.bot(id));
    await trimRevokedServiceAccounts(this.ctx, bot.workspace);
  }

  /** Whether the service account is live (not revoked: a revoked one stays revoked). */
  async isLive(id: string, workspace: string): Promise<boolean> {
    return (await this.ctx.redis.sismember(K.workspaceLiveBots(workspace), id)) === 1;
  }

  async grantOf(id: string, project: string): Promise<KeyLevel | null> {
    const level = await this.ctx.redis.hget(K.botGrants(id), project);
    return isKeyLevel(level) ? level : null;
  }
}
