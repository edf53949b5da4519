import type { KeyLevel } from '@svc/policy';
import { isKeyLevel } from '@svc/policy';
import type { ApiKeyStore, IssuedKey } from './api-keys.ts';
import { addToSet } from './collection-limits.ts';
import type { StoreContext } from './context.ts';
import { invalidate, newId } from './context.ts';
import { AccountError } from './errors.ts';
import { INVALIDATES, K } from './keys.ts';
import type { Bot } from './types.ts';
import type { WorkspaceStore } from './workspaces.ts';

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
    const bot: Bot = { id, workspace: input.workspace, name: input.name, keyId: key.id, createdAt: this.ctx.now(), grants: {} };
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
    const g: Record<string, KeyLevel> = {};
    for (const [p, l] of Object.entries(grants)) if (isKeyLevel(l)) g[p] = l;
    return {
      id: h['id'],
      workspace: h['workspace'] ?? '',
      name: h['name'] ?? '',
      keyId: h['keyId'] ?? '',
      createdAt: Number(h['createdAt']),
      grants: g,
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

  /** A new key for the service account; the old one is revoked (refused everywhere within a second). */
  async rotateKey(id: string): Promise<IssuedKey> {
    const bot = await this.get(id);
    if (!bot) throw new AccountError('not_found', `no service account ${id}`);
    // A revoked service account comes back to life with a new key: it needs a place again.
    await addToSet(this.ctx, 'serviceAccountsPerWorkspace', K.workspaceLiveBots(bot.workspace), id);
    const key = await this.keys.issue({ kind: 'bot_key', name: bot.name, workspace: bot.workspace, botId: id });
    await this.ctx.redis.hset(K.bot(id), 'keyId', key.id);
    if (bot.keyId)
      await this.keys.revoke(bot.keyId).catch((err: unknown) => {
        if (!(err instanceof AccountError && err.code === 'not_found')) throw err;
      });
    return key;
  }

  /** Revokes the service account's key: it no longer counts against its workspace's limit. */
  async revoke(id: string): Promise<void> {
    const bot = await this.get(id);
    if (!bot) throw new AccountError('not_found', `no service account ${id}`);
    const key = await this.keys.getById(bot.keyId);
    if (key && !key.revoked) await this.keys.revoke(key.id);
    await this.ctx.redis.srem(K.workspaceLiveBots(bot.workspace), id);
    // Its OAuth client's tokens are refused by every gateway at once (docs/auth-service.md "Client credentials").
    await invalidate(this.ctx, INVALIDATES.bot(id));
  }

  /** Whether the service account is live (not revoked, or brought back by a rotation). */
  async isLive(id: string, workspace: string): Promise<boolean> {
    return (await this.ctx.redis.sismember(K.workspaceLiveBots(workspace), id)) === 1;
  }

  async grantOf(id: string, project: string): Promise<KeyLevel | null> {
    const level = await this.ctx.redis.hget(K.botGrants(id), project);
    return isKeyLevel(level) ? level : null;
  }
}
