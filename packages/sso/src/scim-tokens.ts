/**
 * A workspace's SCIM bearer tokens (docs/auth-service.md "SCIM provisioning"): a credential kind of
 * its own (`svc-scim-`, @svc/credentials), stored only as its keyed hash like an API key, its clear
 * value shown once when made. At most SCIM_MAX_TOKENS live at once, so a directory can move to a
 * new token before the old one is revoked.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from '@svc/accounts';
import { displayPrefix, generateCredential, hashCredential, parseCredential } from '@svc/credentials';
import { SCIM_MAX_TOKENS } from './scim-bounds.ts';
import { SCIMK } from './scim-keys.ts';

/** A live token as its workspace's owner sees it: never its value. */
export interface ScimTokenInfo {
  id: string;
  /** Its display prefix, e.g. `svc-scim-Ab3x...`. */
  prefix: string;
  createdAt: number;
}

export function createScimTokens(redis: Redis, pepper: string) {
  return {
    async list(workspace: string): Promise<ScimTokenInfo[]> {
      const h = await redis.hgetall(SCIMK.tokens(workspace));
      return Object.values(h)
        .map((v) => JSON.parse(v) as ScimTokenInfo & { hash?: string })
        .map(({ id, prefix, createdAt }) => ({ id, prefix, createdAt }))
        .sort((a, b) => a.createdAt - b.createdAt);
    },
    /** A new token: its clear value (returned here only) and what the list shows; null when SCIM_MAX_TOKENS are live. */
    async create(workspace: string, now: number): Promise<{ value: string; info: ScimTokenInfo } | null> {
      if ((await redis.hlen(SCIMK.tokens(workspace))) >= SCIM_MAX_TOKENS) return null;
      const value = generateCredential('scim_token');
      const hash = hashCredential(value, pepper);
      const info = { id: randomUUID(), prefix: displayPrefix(value), createdAt: now };
      // The lookup first, then the list: a listed token is always one that works until revoked.
      await redis.set(SCIMK.token(hash), JSON.stringify({ workspace, ...info }));
      await redis.hset(SCIMK.tokens(workspace), info.id, JSON.stringify({ ...info, hash }));
      return { value, info };
    },
    /** Ends a token: true when it was live. */
    async revoke(workspace: string, id: string): Promise<ScimTokenInfo | null> {
      const raw = await redis.hget(SCIMK.tokens(workspace), id);
      if (!raw) return null;
      const rec = JSON.parse(raw) as ScimTokenInfo & { hash: string };
      await redis.del(SCIMK.token(rec.hash));
      await redis.hdel(SCIMK.tokens(workspace), id);
      return { id: rec.id, prefix: rec.prefix, createdAt: rec.createdAt };
    },
    /** Ends every token of the workspace (a takeover's clean-up, docs/security.md "Unproven addresses"). */
    async revokeAll(workspace: string): Promise<number> {
      let n = 0;
      for (const t of await this.list(workspace)) if (await this.revoke(workspace, t.id)) n++;
      return n;
    },
    /** The workspace and token a bearer value is, or null: a malformed value reads no storage. */
    async resolve(value: string): Promise<{ workspace: string; id: string; prefix: string } | null> {
      if (parseCredential(value)?.kind !== 'scim_token') return null;
      const raw = await redis.get(SCIMK.token(hashCredential(value, pepper)));
      if (!raw) return null;
      const rec = JSON.parse(raw) as { workspace: string; id: string; prefix: string };
      return { workspace: rec.workspace, id: rec.id, prefix: rec.prefix };
    },
  };
}

export type ScimTokens = ReturnType<typeof createScimTokens>;
