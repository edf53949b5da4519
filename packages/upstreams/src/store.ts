/**
 * A project's upstream servers and their tools' rows in Redis (docs/redis-schema.md "Upstream
 * servers"): one hash per project, `u:<name>` holding an upstream, `t:<name>:<tool>` a tool's
 * row and `b:<tool>` the project's setting of a built-in tool, so a gateway reads a project's whole tool set in one command and every change is one
 * script on one key (atomic, and one slot on Redis Cluster). Each change is announced on the
 * invalidation channel, so every gateway drops its copy (INVALIDATES.upstreams).
 */
import { INVALIDATES, INVALIDATION_CHANNEL, K, type Redis } from '@svc/accounts';
import { runScript, script } from '@svc/limits';
import { UPSTREAM_LIMITS } from './limits.ts';
import type { BuiltinToolSetting, ProjectUpstreams, Upstream, UpstreamTool } from './types.ts';

const upstreamField = (name: string) => `u:${name}`;
const toolField = (upstream: string, tool: string) => `t:${upstream}:${tool}`;
const builtinField = (tool: string) => `b:${tool}`;

/**
 * Adds an upstream and its tools unless one of that name exists or the project holds its limit.
 * KEYS[1] the project's hash; ARGV[1] the upstream's field, ARGV[2] its record, ARGV[3] the limit,
 * then field/value pairs of its tools. Returns 1, or 'exists' / 'full'.
 */
const ADD = script(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 'exists' end
local count = 0
for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(f, 1, 2) == 'u:' then count = count + 1 end
end
if count >= tonumber(ARGV[3]) then return 'full' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
`);

/**
 * Compare and set: applies the writes only when every checked field still holds what was read.
 * KEYS[1] the hash; ARGV[1] n checks, then n (field, expected) pairs (expected '' for absent),
 * then m, m (field, value) pairs to set, then the fields to delete. Returns 1, or 0 when a check failed.
 */
const WRITE_IF_UNCHANGED = script(`
local n = tonumber(ARGV[1])
local i = 2
for _ = 1, n do
  local now = redis.call('HGET', KEYS[1], ARGV[i]) or ''
  if now ~= ARGV[i + 1] then return 0 end
  i = i + 2
end
local m = tonumber(ARGV[i])
i = i + 1
for _ = 1, m do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
while i <= #ARGV do
  redis.call('HDEL', KEYS[1], ARGV[i])
  i = i + 1
end
return 1
`);

/** Removes an upstream and its tools' rows. KEYS[1] the hash; ARGV[1] its field, ARGV[2] its tools' prefix. Returns its record or false. */
const REMOVE = script(`
local record = redis.call('HGET', KEYS[1], ARGV[1])
if not record then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
local prefix = ARGV[2]
for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(f, 1, #prefix) == prefix then redis.call('HDEL', KEYS[1], f) end
end
return record
`);

/** One change of an upstream's rows: what was read (to compare) and what to write. */
export interface RowChange {
  /** The fields read and their text then ('' for absent): the write is refused if any moved. */
  read: Map<string, string>;
  set: Map<string, string>;
  remove: string[];
}

export class UpstreamStore {
  private readonly redis: Redis;
  constructor(redis: Redis) {
    this.redis = redis;
  }

  /** Every upstream of the project and every tool row, in one read; rows that do not parse are skipped. */
  async read(project: string): Promise<ProjectUpstreams & { raw: Map<string, string> }> {
    const all = await this.redis.hgetall(K.projectUpstreams(project));
    const upstreams: Upstream[] = [];
    const tools: UpstreamTool[] = [];
    const builtins: BuiltinToolSetting[] = [];
    const raw = new Map(Object.entries(all));
    let toolBytes = 0;
    for (const [field, text] of raw) {
      const value = parse(text);
      if (!value) continue;
      if (field.startsWith('u:')) upstreams.push(value as unknown as Upstream);
      else if (field.startsWith('t:')) {
        tools.push(value as unknown as UpstreamTool);
        toolBytes += text.length;
      } else if (field.startsWith('b:')) builtins.push(value as unknown as BuiltinToolSetting);
    }
    upstreams.sort((a, b) => (a.name < b.name ? -1 : 1));
    return { upstreams, tools, builtins, toolBytes, raw };
  }

  async add(upstream: Upstream, tools: UpstreamTool[]): Promise<'added' | 'exists' | 'full'> {
    const pairs = tools.flatMap((t) => [toolField(t.upstream, t.name), JSON.stringify(t)]);
    const answer = await runScript(
      this.redis,
      ADD,
      [K.projectUpstreams(upstream.project)],
      [upstreamField(upstream.name), JSON.stringify(upstream), UPSTREAM_LIMITS.perProject, ...pairs],
    );
    if (answer === 'exists' || answer === 'full') return answer;
    await this.changed(upstream.project);
    return 'added';
  }

  /** Applies `change` if none of the fields it read moved since; false when one did (read again and retry). */
  async write(project: string, change: RowChange): Promise<boolean> {
    const args: (string | number)[] = [change.read.size];
    for (const [field, was] of change.read) args.push(field, was);
    args.push(change.set.size);
    for (const [field, value] of change.set) args.push(field, value);
    args.push(...change.remove);
    const done = (await runScript(this.redis, WRITE_IF_UNCHANGED, [K.projectUpstreams(project)], args)) === 1;
    if (done) await this.changed(project);
    return done;
  }

  /** Sets the project's own rule for a built-in tool, or (null) goes back to the tool's own row. */
  async setBuiltin(project: string, tool: string, setting: BuiltinToolSetting | null): Promise<void> {
    const key = K.projectUpstreams(project);
    if (setting) await this.redis.hset(key, builtinField(tool), JSON.stringify(setting));
    else await this.redis.hdel(key, builtinField(tool));
    await this.changed(project);
  }

  async remove(project: string, name: string): Promise<Upstream | null> {
    const record = await runScript(this.redis, REMOVE, [K.projectUpstreams(project)], [upstreamField(name), `t:${name}:`]);
    if (typeof record !== 'string') return null;
    await this.changed(project);
    return parse(record) as unknown as Upstream | null;
  }

  /** Every upstream of the project, gone (a taken-over workspace's, docs/security.md "Unproven addresses"). */
  async removeAll(project: string): Promise<number> {
    const removed = await this.redis.del(K.projectUpstreams(project));
    if (removed) await this.changed(project);
    return removed;
  }

  private async changed(project: string): Promise<void> {
    await this.redis.publish(INVALIDATION_CHANNEL, INVALIDATES.upstreams(project));
  }
}

export const FIELDS = { upstream: upstreamField, tool: toolField };

function parse(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
