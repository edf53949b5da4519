/**
 * The Redis keys of SCIM provisioning (docs/redis-schema.md, section "auth-service (SCIM
 * provisioning)"). A workspace's directory keys share the hash tag `{<workspace>}` so a write that
 * touches a record and its index is one MULTI on Redis Cluster too.
 */
export const SCIMK = {
  /** A SCIM token by its keyed hash (HMAC-SHA-256 under KEY_PEPPER): JSON {workspace, id, prefix, createdAt}. */
  token: (hash: string) => `svc:scim:token:${hash}`,
  /** A workspace's live tokens: hash id -> JSON {id, prefix, createdAt, hash}. */
  tokens: (workspace: string) => `svc:scim:{${workspace}}:tokens`,
  /** A workspace's SCIM users: hash SCIM id -> JSON ScimUser. */
  users: (workspace: string) => `svc:scim:{${workspace}}:users`,
  /** A workspace's userNames, lower-cased (RFC 7643 §4.1.1: case-insensitive) -> SCIM id (HSETNX: one each). */
  userNames: (workspace: string) => `svc:scim:{${workspace}}:user-names`,
  /** A workspace's SCIM groups: hash SCIM id -> JSON ScimGroup. */
  groups: (workspace: string) => `svc:scim:{${workspace}}:groups`,
  /** A workspace's group displayNames, lower-cased -> SCIM id (HSETNX: one each). */
  groupNames: (workspace: string) => `svc:scim:{${workspace}}:group-names`,
};
