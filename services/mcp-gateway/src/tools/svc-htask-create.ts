/** svc_htask_create: a task in a hierarchy of at most four levels, answered with its whole tree from the top. */
import { createTask, TASK_LIMITS, taskTree, type TaskTree } from '@svc/knowledge';
import type { KnowledgeToolDeps } from './svc-knowledge-shared.ts';
import { projectOf } from './svc-knowledge-shared.ts';
import type { ToolDefinition } from './types.ts';
import { defineTool, text, ToolFailure } from './types.ts';

function render(t: TaskTree, depth = 0, created = ''): string[] {
  const line = `${'  '.repeat(depth)}- ${t.title} (${t.id}, level ${t.level})${t.id === created ? '  <- new' : ''}`;
  return [line, ...t.children.flatMap((c) => render(c, depth + 1, created))];
}

function json(t: TaskTree): Record<string, unknown> {
  return { id: t.id, title: t.title, description: t.description, level: t.level, status: t.status, children: t.children.map(json) };
}

export function svcHtaskCreate(deps: KnowledgeToolDeps): ToolDefinition {
  const { knowledge } = deps;
  return defineTool({
    name: 'svc_htask_create',
    title: 'Create a task',
    description:
      `Creates a task, at the top or under a parent task, in a hierarchy of at most ${TASK_LIMITS.maxDepth} levels. ` +
      'Answers with the whole tree the task belongs to, children under their parents.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['title'],
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 200, description: 'Short title of the task.' },
        description: { type: 'string', maxLength: 5000, description: 'What is to be done.' },
        parent: {
          type: 'string',
          minLength: 1,
          maxLength: 64,
          description: 'Id of the parent task (from an earlier svc_htask_create); omit for a top-level task.',
        },
      },
    },
    annotations: { readOnlyHint: false, idempotentHint: false },
    async call(args, caller) {
      const project = projectOf(caller);
      const r = await createTask(knowledge.redis, project, { ...args, createdBy: caller.label });
      if ('error' in r) {
        if (r.error === 'no_parent') throw new ToolFailure(`No task "${args.parent}" in this project.`);
        if (r.error === 'too_deep')
          throw new ToolFailure(
            `Task "${args.parent}" is at level ${TASK_LIMITS.maxDepth}, the deepest allowed; attach the new task to a task higher up.`,
          );
        throw new ToolFailure(`The project holds ${TASK_LIMITS.perProject} tasks, the limit.`);
      }
      const task = r.task;
      const tree = await taskTree(knowledge.redis, project, task.ancestors[0] ?? task.id);
      const lines = tree ? render(tree, 0, task.id) : [];
      return text(`Created task "${task.title}" (${task.id}) at level ${task.level}.\n\n${lines.join('\n')}`, {
        task: {
          id: task.id,
          title: task.title,
          description: task.description,
          parent: task.parent,
          level: task.level,
          status: task.status,
          created_at: task.createdAt,
        },
        tree: tree ? json(tree) : null,
      });
    },
  });
}
