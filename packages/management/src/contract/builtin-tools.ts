/**
 * svc's own tools in one project (docs/approvals.md "The rule"): their rows are svc's
 * (TOOL_POLICIES); a project's admins choose whether calls of one wait for an approval.
 */
import { READ } from './policy.ts';
import { APPROVAL_RULE, defineOperation, segment, WHEN } from './define.ts';

const PROJECT = { type: 'object', properties: { project: segment('Project slug.') }, required: ['project'] } as const;

const BUILTIN_TOOL = {
  type: 'object',
  description: "One of svc's own tools in this project.",
  properties: {
    name: { type: 'string' },
    summary: { type: 'string' },
    level: { type: 'string', description: 'Who may call it (its row in the tool policy table).' },
    approval: { ...APPROVAL_RULE, description: "The project's rule, or the tool's own row's when none is set." },
    approval_settable: {
      type: 'boolean',
      description: 'false for the tools any caller uses to find their way (level NONE: help, asking for access, following an approval).',
    },
    set_by: { type: ['string', 'null'], description: "Who set the project's rule; null: the tool's own." },
    set_at: WHEN,
  },
  required: ['name', 'summary', 'level', 'approval', 'approval_settable', 'set_by', 'set_at'],
  additionalProperties: false,
} as const;

export const listBuiltinTools = defineOperation({
  method: 'GET',
  path: '/api/v1/projects/{project}/builtin-tools',
  summary: "list svc's own tools in a project, with the project's approval rule for each",
  policy: READ('admin'),
  statuses: [200],
  params: PROJECT,
  answer: {
    type: 'object',
    properties: { tools: { type: 'array', items: BUILTIN_TOOL } },
    required: ['tools'],
    additionalProperties: false,
  },
});

export const setBuiltinTool = defineOperation({
  method: 'PATCH',
  path: '/api/v1/projects/{project}/builtin-tools/{tool}',
  summary: "set whether calls of one of svc's own tools wait for an admin's approval in a project",
  policy: { caller: 'admin', stepUp: 'always', confirmed: false, audit: ['tool.approval_changed'], bucket: 'management' },
  statuses: [200],
  params: {
    type: 'object',
    properties: { project: segment('Project slug.'), tool: segment('The tool, by name (svc_search).') },
    required: ['project', 'tool'],
  },
  body: {
    type: 'object',
    properties: { approval: APPROVAL_RULE },
    required: ['approval'],
    additionalProperties: false,
  },
  answer: BUILTIN_TOOL,
});
