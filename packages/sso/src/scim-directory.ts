/**
 * A workspace's SCIM directory (docs/auth-service.md "SCIM provisioning"): the Users and Groups a
 * company's directory provisioned (RFC 7643 §4.1, §4.2), each user linked to the svc account of its
 * address. Names are unique per workspace, case-insensitively (RFC 7643 §4.1.1 `userName`), claimed
 * with HSETNX so two concurrent creations of one name make one record.
 */
import type { Redis } from '@svc/accounts';
import { SCIM_MAX_GROUPS, SCIM_MAX_USERS } from './scim-bounds.ts';
import { SCIMK } from './scim-keys.ts';

/** A provisioned person (RFC 7643 §4.1), as svc keeps it. */
export interface ScimUser {
  id: string;
  userName: string;
  externalId: string | null;
  displayName: string | null;
  givenName: string | null;
  familyName: string | null;
  /** The svc account the record is: the address's (userName, or the primary email). */
  userId: string;
  email: string;
  active: boolean;
  created: number;
  lastModified: number;
}

/** A provisioned group (RFC 7643 §4.2): its members are SCIM user ids. */
export interface ScimGroup {
  id: string;
  displayName: string;
  externalId: string | null;
  members: string[];
  created: number;
  lastModified: number;
}

/** Why a write was refused: the name is another record's, or the directory is full. */
export type DirectoryRefusal = 'taken' | 'full';

function records<T>(redis: Redis, key: (ws: string) => string, names: (ws: string) => string, nameOf: (r: T) => string, max: number) {
  return {
    async list(workspace: string): Promise<T[]> {
      return Object.values(await redis.hgetall(key(workspace))).map((v) => JSON.parse(v) as T);
    },
    async get(workspace: string, id: string): Promise<T | null> {
      const raw = await redis.hget(key(workspace), id);
      return raw ? (JSON.parse(raw) as T) : null;
    },
    /** Saves a record (new, or `before` changed); its name is claimed first, the old one released after. */
    async save(workspace: string, id: string, record: T, before: T | null): Promise<DirectoryRefusal | null> {
      if (!before && (await redis.hlen(key(workspace))) >= max) return 'full';
      const name = nameOf(record).toLowerCase();
      const old = before ? nameOf(before).toLowerCase() : null;
      if (name !== old) {
        await redis.hsetnx(names(workspace), name, id);
        if ((await redis.hget(names(workspace), name)) !== id) return 'taken';
      }
      await redis.hset(key(workspace), id, JSON.stringify(record));
      if (old !== null && old !== name) await redis.hdel(names(workspace), old);
      return null;
    },
    async remove(workspace: string, id: string, record: T): Promise<void> {
      await redis.multi().hdel(key(workspace), id).hdel(names(workspace), nameOf(record).toLowerCase()).exec();
    },
    /** The id of the record of a name (case-insensitive), or null. */
    async named(workspace: string, name: string): Promise<string | null> {
      return redis.hget(names(workspace), name.toLowerCase());
    },
    /** Removes every record (the workspace is deleted or taken over). */
    async clear(workspace: string): Promise<number> {
      const n = await redis.hlen(key(workspace));
      await redis.del(key(workspace), names(workspace));
      return n;
    },
  };
}

export function createScimDirectory(redis: Redis) {
  return {
    users: records<ScimUser>(redis, SCIMK.users, SCIMK.userNames, (u) => u.userName, SCIM_MAX_USERS),
    groups: records<ScimGroup>(redis, SCIMK.groups, SCIMK.groupNames, (g) => g.displayName, SCIM_MAX_GROUPS),
  };
}

export type ScimDirectory = ReturnType<typeof createScimDirectory>;
