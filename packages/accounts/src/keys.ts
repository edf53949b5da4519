/**
 * The Redis key layout of the account model. docs/redis-schema.md describes each key; this is the
 * one place that spells them. Rate-limit counters share the workspace's hash tag so one Lua script
 * may touch both on Redis Cluster.
 */
export const INVALIDATION_CHANNEL = 'svc:invalidate';

export const K = {
  user: (id: string) => `svc:user:${id}`,
  userByEmail: (email: string) => `svc:user-email:${email.toLowerCase()}`,
  userWorkspaces: (id: string) => `svc:user:${id}:workspaces`,
  userProjects: (id: string) => `svc:user:${id}:projects`,
  userKeys: (id: string) => `svc:user:${id}:keys`,
  workspace: (slug: string) => `svc:ws:${slug}`,
  workspaceProjects: (slug: string) => `svc:ws:${slug}:projects`,
  workspaceBots: (slug: string) => `svc:ws:${slug}:bots`,
  project: (slug: string) => `svc:project:${slug}`,
  projectRoles: (slug: string) => `svc:project:${slug}:roles`,
  projectKeys: (slug: string) => `svc:project:${slug}:keys`,
  projectAccessRequests: (slug: string) => `svc:project:${slug}:access-requests`,
  apiKey: (hash: string) => `svc:key:${hash}`,
  apiKeyById: (id: string) => `svc:key-id:${id}`,
  bot: (id: string) => `svc:bot:${id}`,
  botGrants: (id: string) => `svc:bot:${id}:grants`,
  accessRequest: (id: string) => `svc:access-request:${id}`,
  rateMinute: (workspace: string, minute: number) => `svc:rl:{${workspace}}:m:${minute}`,
  rateMonth: (workspace: string, month: string) => `svc:rl:{${workspace}}:q:${month}`,
};
