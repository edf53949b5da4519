/**
 * A project's upstream MCP servers (docs/upstream-servers.md): its admins register a server by its
 * URL, svc lists its tools beside the built-in ones as `<upstream>__<tool>` and forwards calls to
 * it, each tool under a policy row the admins edit.
 */
import { PLANS, SURFACES } from '@svc/policy';
import { UPSTREAM_LIMITS } from '@svc/upstreams/limits.ts';
import { READ } from './policy.ts';
import { APPROVAL_RULE, defineOperation, segment, WHEN } from './define.ts';

/** What one call spends of its caller's tool budget (a row's `cost`). */
const TOOL_COST = {
  type: 'integer',
  minimum: UPSTREAM_LIMITS.toolCost.min,
  maximum: UPSTREAM_LIMITS.toolCost.max,
  description: 'Tokens a call spends of its caller\'s tool budget per minute (docs/operations.md "Limits for agents"); 1 unless set.',
} as const;
const PROJECT = { type: 'object', properties: { project: segment('Project slug.') }, required: ['project'] } as const;
const ONE = {
  type: 'object',
  properties: { project: segment('Project slug.'), name: segment("The upstream server's name (svc upstreams list).") },
  required: ['project', 'name'],
} as const;
const LEVEL = { type: 'string', enum: ['VIEWER', 'EDITOR', 'ADMIN'] } as const;
const PLAN = { type: 'string', enum: PLANS } as const;
const SURFACE_LIST = { type: 'array', items: { type: 'string', enum: SURFACES }, uniqueItems: true } as const;

const DESCRIPTOR = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    description: { type: 'string' },
    input_schema: { type: 'object' },
    annotations: { type: 'object' },
  },
  required: ['description', 'input_schema'],
  additionalProperties: false,
} as const;

const TOOL = {
  type: 'object',
  description: "One of the upstream's tools and its policy row.",
  properties: {
    name: { type: 'string', description: 'Its name at the upstream.' },
    listed_name: { type: 'string', description: 'Its name in tools/list here: `<upstream>__<name>`.' },
    state: {
      type: 'string',
      enum: ['listed', 'new', 'changed', 'missing'],
      description: 'new: appeared after registration, off until turned on; changed: waits for accept_change; missing: no longer listed.',
    },
    descriptor: DESCRIPTOR,
    pending: { anyOf: [DESCRIPTOR, { type: 'null' }], description: 'The change the upstream made, waiting for accept_change.' },
    level: LEVEL,
    plan: PLAN,
    surfaces: SURFACE_LIST,
    agents: { type: 'boolean' },
    counts_as_query: { type: 'boolean' },
    cost: TOOL_COST,
    enabled: { type: 'boolean' },
    approval: APPROVAL_RULE,
    first_seen: WHEN,
  },
  required: [
    'name',
    'listed_name',
    'state',
    'descriptor',
    'pending',
    'level',
    'plan',
    'surfaces',
    'agents',
    'counts_as_query',
    'cost',
    'enabled',
    'approval',
    'first_seen',
  ],
  additionalProperties: false,
} as const;

const UPSTREAM = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    url: { type: 'string' },
    timeout_ms: { type: 'integer' },
    credential: {
      anyOf: [
        { type: 'object', properties: { header: { type: 'string' } }, required: ['header'], additionalProperties: false },
        { type: 'null' },
      ],
      description: 'The header a static credential is sent in; its value is never shown again.',
    },
    protocol_version: { type: ['string', 'null'] },
    added_at: WHEN,
    added_by: { type: 'string' },
    refreshed_at: WHEN,
    problem: { type: ['string', 'null'], description: 'What went wrong when its tools were last read, or what was left out.' },
    tools: { type: 'array', items: TOOL },
  },
  required: ['name', 'url', 'timeout_ms', 'credential', 'protocol_version', 'added_at', 'added_by', 'refreshed_at', 'problem', 'tools'],
  additionalProperties: false,
} as const;

const TIMEOUT = {
  type: 'integer',
  minimum: UPSTREAM_LIMITS.timeoutMs.min,
  maximum: UPSTREAM_LIMITS.timeoutMs.max,
  description: `How long a forwarded call may take, ms (default ${UPSTREAM_LIMITS.timeoutMs.default}).`,
} as const;
const CREDENTIAL = {
  type: ['object', 'null'],
  description: 'A static credential svc sends the upstream with every request (sealed at rest, never shown again).',
  properties: {
    header: { type: 'string', maxLength: 64, description: 'Its header, e.g. X-Api-Key or Authorization.' },
    value: { type: 'string', minLength: 1, maxLength: UPSTREAM_LIMITS.credentialLength },
  },
  required: ['header', 'value'],
  additionalProperties: false,
} as const;

export const listUpstreams = defineOperation({
  method: 'GET',
  path: '/api/v1/projects/{project}/upstreams',
  summary: "list the project's upstream MCP servers and their tools",
  policy: READ('admin'),
  statuses: [200],
  params: PROJECT,
  answer: {
    type: 'object',
    properties: { upstreams: { type: 'array', items: UPSTREAM } },
    required: ['upstreams'],
    additionalProperties: false,
  },
});

export const addUpstream = defineOperation({
  method: 'POST',
  path: '/api/v1/projects/{project}/upstreams',
  summary: 'register an upstream MCP server: svc reads its tools at once and offers them under their policy rows',
  policy: { caller: 'admin', stepUp: 'always', confirmed: true, setting: 'upstream', audit: ['upstream.added'], bucket: 'management' },
  statuses: [201],
  params: PROJECT,
  body: {
    type: 'object',
    description: `At most ${UPSTREAM_LIMITS.perProject} per project.`,
    properties: {
      name: {
        type: 'string',
        maxLength: UPSTREAM_LIMITS.nameLength,
        description: 'Lower-case letters, digits and hyphens; the prefix of its tools here.',
      },
      url: { type: 'string', maxLength: UPSTREAM_LIMITS.urlLength, description: 'Its Streamable HTTP endpoint (http or https).' },
      timeout_ms: TIMEOUT,
      credential: { ...CREDENTIAL, type: 'object' },
    },
    required: ['name', 'url'],
    additionalProperties: false,
  },
  answer: UPSTREAM,
});

export const getUpstream = defineOperation({
  method: 'GET',
  path: '/api/v1/projects/{project}/upstreams/{name}',
  summary: 'one upstream MCP server and its tools',
  policy: READ('admin'),
  statuses: [200],
  params: ONE,
  answer: UPSTREAM,
});

export const updateUpstream = defineOperation({
  method: 'PATCH',
  path: '/api/v1/projects/{project}/upstreams/{name}',
  summary: "change an upstream's URL, timeout or credential (a new URL or credential reads its tools again)",
  policy: { caller: 'admin', stepUp: 'always', confirmed: true, setting: 'upstream', audit: ['upstream.changed'], bucket: 'management' },
  statuses: [200],
  params: ONE,
  body: {
    type: 'object',
    properties: {
      url: { type: 'string', maxLength: UPSTREAM_LIMITS.urlLength },
      timeout_ms: TIMEOUT,
      credential: { ...CREDENTIAL, description: `${CREDENTIAL.description} null removes it.` },
    },
    additionalProperties: false,
  },
  answer: UPSTREAM,
});

export const refreshUpstream = defineOperation({
  method: 'POST',
  path: '/api/v1/projects/{project}/upstreams/{name}/refresh',
  summary: "read an upstream's tools again now (new tools start off; changed ones wait for accept_change)",
  policy: {
    caller: 'admin',
    stepUp: 'never',
    confirmed: false,
    audit: ['upstream.refreshed', 'upstream.tools_changed'],
    bucket: 'management',
  },
  statuses: [200],
  params: ONE,
  answer: UPSTREAM,
});

export const setUpstreamTool = defineOperation({
  method: 'PATCH',
  path: '/api/v1/projects/{project}/upstreams/{name}/tools/{tool}',
  summary: "change an upstream tool's policy row, turn it on or off, or accept the upstream's change to it",
  policy: { caller: 'admin', stepUp: 'always', confirmed: false, audit: ['upstream.tool_changed'], bucket: 'management' },
  statuses: [200],
  params: {
    type: 'object',
    properties: {
      project: segment('Project slug.'),
      name: segment("The upstream server's name."),
      tool: segment('The tool, by its name at the upstream.'),
    },
    required: ['project', 'name', 'tool'],
  },
  body: {
    type: 'object',
    properties: {
      level: LEVEL,
      plan: PLAN,
      surfaces: SURFACE_LIST,
      agents: { type: 'boolean' },
      counts_as_query: { type: 'boolean' },
      cost: TOOL_COST,
      enabled: { type: 'boolean' },
      approval: APPROVAL_RULE,
      accept_change: { type: 'boolean', description: "true: take the upstream's changed description, schema and annotations." },
    },
    additionalProperties: false,
  },
  answer: UPSTREAM,
});

export const removeUpstream = defineOperation({
  method: 'DELETE',
  path: '/api/v1/projects/{project}/upstreams/{name}',
  summary: 'remove an upstream MCP server: its tools are no longer offered',
  policy: { caller: 'admin', stepUp: 'never', confirmed: false, audit: ['upstream.removed'], bucket: 'management' },
  statuses: [200],
  params: ONE,
  answer: {
    type: 'object',
    properties: { name: { type: 'string' }, removed: { const: true } },
    required: ['name', 'removed'],
    additionalProperties: false,
  },
});
