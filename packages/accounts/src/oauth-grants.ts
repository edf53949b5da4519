/**
 * The OAuth grants people have given to apps (MCP clients), read from the auth-service's
 * oidc-provider records in the shared Redis (docs/redis-schema.md "auth-service"). A grant names
 * the client, the person and the MCP resources (one per project) it reaches; revoking it deletes
 * its tokens and codes and tells every gateway, which refuses them within a second. A grant
 * delegated from one of its tokens (RFC 8693 token exchange, docs/auth-service.md "Delegation
 * (token exchange)") ends with it, and so on down the chain.
 */
import type { StoreContext } from './context.ts';
import { invalidate, writeInSlices } from './context.ts';
import { INVALIDATES } from './keys.ts';
import { addToRecordSet } from './oidc-record-writes.ts';
import {
  DELEGATION_MAX_DEPTH,
  DELEGATIONS_PER_GRANT_MAX,
  GRANT_USE_KEPT_SECONDS,
  oidcAccountGrantUseKey,
  oidcAccountGrantsKey,
  oidcGrantDelegationsKey,
  oidcGrantKeysKey,
  oidcRecordKey,
  oidcRecords,
} from './oidc-records.ts';

export interface OAuthGrant {
  id: string;
  clientId: string;
  /** The registered client's own name, or the client id for svc's first-party clients. */
  clientName: string;
  /** The project slugs the grant reaches, with the scope granted for each. */
  projects: { slug: string; scope: string }[];
  /** Unix ms. */
  createdAt: number;
  expiresAt: number | null;
  /** When a gateway last accepted one of its tokens (Unix ms; a few seconds late), or null: not since it was kept. */
  lastUsedAt: number | null;
}

/** The project a resource indicator names: `<base>/mcp/<slug>`. */
function projectOfResource(resource: string): string | null {
  try {
    const m = /^\/mcp\/([^/]+)$/.exec(new URL(resource).pathname);
    return m ? m[1]! : null;
  } catch {
    return null;
  }
}

export class OAuthGrantStore {
  private readonly ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.ctx = ctx;
  }

  /** Records that `grantId` is the person's; kept as long as their longest grant. */
  async index(accountId: string, grantId: string, expiresInSeconds: number): Promise<void> {
    await addToRecordSet(this.ctx.redis, oidcAccountGrantsKey(accountId), grantId, expiresInSeconds);
  }

  async get(grantId: string): Promise<(OAuthGrant & { accountId: string }) | null> {
    const g = await oidcRecords.grant(this.ctx.redis, grantId);
    if (!g?.accountId || !g.clientId) return null;
    const projects = Object.entries(g.resources).flatMap(([resource, scope]) => {
      const slug = projectOfResource(resource);
      return slug ? [{ slug, scope }] : [];
    });
    return {
      id: grantId,
      accountId: g.accountId,
      clientId: g.clientId,
      clientName: (await this.clientName(g.clientId)) ?? g.clientId,
      projects,
      createdAt: (g.iat ?? 0) * 1000,
      expiresAt: g.exp ? g.exp * 1000 : null,
      lastUsedAt: null,
    };
  }

  /** The person's live grants, newest first (ended ones are dropped from the index on the way). */
  async listForUser(userId: string): Promise<OAuthGrant[]> {
    const key = oidcAccountGrantsKey(userId);
    const out: OAuthGrant[] = [];
    const used = await this.ctx.redis.hgetall(oidcAccountGrantUseKey(userId));
    for (const id of await this.ctx.redis.smembers(key)) {
      const grant = await this.get(id);
      if (!grant || grant.accountId !== userId) await this.ctx.redis.srem(key, id);
      else out.push({ ...grant, lastUsedAt: used[id] ? Number(used[id]) : null });
    }
    return out.sort((a, b) => b.createdAt - a.createdAt);
  }

  /**
   * Records when each person's apps last used their grants (`uses`: person → grant → Unix ms), as
   * the gateways batch them. Not waited for (docs/operations.md "Write durability"), as a key's
   * last use is not.
   */
  async touch(uses: ReadonlyMap<string, ReadonlyMap<string, number>>): Promise<void> {
    await writeInSlices([...uses], async ([userId, grants]) => {
      const key = oidcAccountGrantUseKey(userId);
      await this.ctx.unconfirmed.hset(key, Object.fromEntries([...grants].map(([id, at]) => [id, String(at)])));
      await this.ctx.unconfirmed.expire(key, GRANT_USE_KEPT_SECONDS);
    });
  }

  /**
   * Records that `childGrantId` was delegated from a token of `grantId` (RFC 8693), so revoking
   * `grantId` revokes it; kept as long as the longest-lived delegated grant. Answers how many
   * delegations of `grantId` are live, counted after the write: past DELEGATIONS_PER_GRANT_MAX the
   * ended ones are dropped from the set and the rest counted again, so of concurrent exchanges
   * none is let past the bound.
   */
  async recordDelegation(grantId: string, childGrantId: string, expiresInSeconds: number): Promise<number> {
    const key = oidcGrantDelegationsKey(grantId);
    await addToRecordSet(this.ctx.redis, key, childGrantId, expiresInSeconds);
    const count = await this.ctx.redis.scard(key);
    if (count <= DELEGATIONS_PER_GRANT_MAX) return count;
    for (const child of await this.ctx.redis.smembers(key))
      if (!(await this.ctx.redis.exists(oidcRecordKey('Grant', child)))) await this.ctx.redis.srem(key, child);
    return this.ctx.redis.scard(key);
  }

  /**
   * Ends a grant: its tokens and codes are deleted and every gateway drops them; then every grant
   * delegated from its tokens, down the chain.
   */
  async revoke(grantId: string): Promise<void> {
    await this.revokeDown(grantId, 0);
  }

  /**
   * The grant's own records first, its delegations read after: a token exchange records its
   * delegation before it checks its parent one last time (oauth/token-exchange-grant.ts in the
   * auth-service), so either the delegation is listed here or that check finds the parent gone.
   * A chain is at most DELEGATION_MAX_DEPTH long; the bound stops any loop a damaged set could make.
   */
  private async revokeDown(grantId: string, depth: number): Promise<void> {
    const set = oidcGrantKeysKey(grantId);
    // One DEL per key: on Redis Cluster they live in different slots.
    for (const key of await this.ctx.redis.smembers(set)) await this.ctx.redis.del(key);
    await this.ctx.redis.del(set);
    await this.ctx.redis.del(oidcRecordKey('Grant', grantId));
    await invalidate(this.ctx, INVALIDATES.oauthGrant(grantId));
    const delegations = oidcGrantDelegationsKey(grantId);
    const delegated = await this.ctx.redis.smembers(delegations);
    await this.ctx.redis.del(delegations);
    if (depth >= DELEGATION_MAX_DEPTH) return;
    for (const child of delegated) await this.revokeDown(child, depth + 1);
  }

  /** Ends every grant of the person that reaches `project` (they left it); the number ended. */
  async revokeForProject(userId: string, project: string): Promise<number> {
    let n = 0;
    for (const grant of await this.listForUser(userId)) {
      if (!grant.projects.some((p) => p.slug === project)) continue;
      await this.revoke(grant.id);
      await this.ctx.redis.srem(oidcAccountGrantsKey(userId), grant.id);
      n++;
    }
    return n;
  }

  private async clientName(clientId: string): Promise<string | null> {
    const name = (await oidcRecords.client(this.ctx.redis, clientId))?.client_name;
    return name || null;
  }
}
