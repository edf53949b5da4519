/**
 * Hierarchical tasks (svc_htask_create): at most four levels (a root task is level 1). The parent
 * check, the depth limit and the insertion happen in one Lua script, so a task can never be
 * attached under a parent of another project or below level four.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { kbKeys } from './keys.ts';
import { runScript, script } from '@svc/limits';

export const TASK_LIMITS = { maxDepth: 4, perProject: 10_000, treeNodes: 200 } as const;

export interface Task {
  id: string;
  title: string;
  description: string;
  parent: string | null;
  /** Ids from the root down to the parent. */
  ancestors: string[];
  level: number;
  status: 'open';
  createdBy: string;
  createdAt: string;
}

export interface TaskTree extends Task {
  children: TaskTree[];
}

// KEYS: tasks hash, children-of-parent zset. ARGV: id, task JSON (ancestors and level filled in
// here), parent id or '', max depth, limit, now.
const CREATE = script(`
local task = cjson.decode(ARGV[2])
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[5]) then return {'full', ''} end
if ARGV[3] ~= '' then
  local pj = redis.call('HGET', KEYS[1], ARGV[3])
  if not pj then return {'no_parent', ''} end
  local parent = cjson.decode(pj)
  if parent.level >= tonumber(ARGV[4]) then return {'too_deep', pj} end
  local anc = parent.ancestors
  table.insert(anc, parent.id)
  task.ancestors = anc
  task.level = parent.level + 1
end
local json = cjson.encode(task)
redis.call('HSET', KEYS[1], ARGV[1], json)
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
return {'created', json}
`);

export type CreateTaskResult = { task: Task } | { error: 'no_parent' | 'too_deep' | 'full' };

export async function createTask(
  redis: Redis,
  project: string,
  input: { title: string; description?: string; parent?: string; createdBy: string },
): Promise<CreateTaskResult> {
  const now = Date.now();
  const task: Task = {
    id: `task_${randomBytes(6).toString('base64url')}`,
    title: input.title,
    description: input.description ?? '',
    parent: input.parent ?? null,
    ancestors: [],
    level: 1,
    status: 'open',
    createdBy: input.createdBy,
    createdAt: new Date(now).toISOString(),
  };
  const k = kbKeys(project);
  const args = [task.id, JSON.stringify(task), input.parent ?? '', TASK_LIMITS.maxDepth, TASK_LIMITS.perProject, now];
  const [status, json] = (await runScript(redis, CREATE, [k.tasks, k.taskChildren(input.parent ?? 'root')], args)) as [string, string];
  if (status !== 'created') return { error: status as 'no_parent' | 'too_deep' | 'full' };
  const created = JSON.parse(json) as Task;
  // cjson encodes an empty Lua table as {}; an empty ancestors list is an array.
  if (!Array.isArray(created.ancestors)) created.ancestors = [];
  return { task: created };
}

/** The tree under a task (breadth-first, at most TASK_LIMITS.treeNodes tasks), children oldest first. */
export async function taskTree(redis: Redis, project: string, rootId: string): Promise<TaskTree | null> {
  const k = kbKeys(project);
  const rootJson = await redis.hget(k.tasks, rootId);
  if (!rootJson) return null;
  const root: TaskTree = { ...(JSON.parse(rootJson) as Task), children: [] };
  let frontier = [root];
  let count = 1;
  while (frontier.length && count < TASK_LIMITS.treeNodes) {
    const next: TaskTree[] = [];
    const childIds = await Promise.all(frontier.map((t) => redis.zrange(k.taskChildren(t.id), 0, TASK_LIMITS.treeNodes)));
    for (const [i, ids] of childIds.entries()) {
      const take = ids.slice(0, TASK_LIMITS.treeNodes - count);
      if (!take.length) continue;
      count += take.length;
      const jsons = await redis.hmget(k.tasks, ...take);
      for (const j of jsons) {
        if (!j) continue;
        const child: TaskTree = { ...(JSON.parse(j) as Task), children: [] };
        if (!Array.isArray(child.ancestors)) child.ancestors = [];
        frontier[i]?.children.push(child);
        next.push(child);
      }
    }
    frontier = next;
  }
  return root;
}
