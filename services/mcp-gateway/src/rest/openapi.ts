/**
 * The OpenAPI 3.1 document of the REST API, generated from the same ToolDefinitions (and so the
 * same JSON Schemas) that tools/list publishes and ajv enforces: one path per tool at
 * POST /api/v1/projects/{slug}/tools/{tool}, and the team form for svc_multi_project_query.
 * Who may call what is the policy table's business (svc_help explains it); the document lists every tool.
 */
import { API_KEY_KINDS } from '@svc/credentials';
import type { ToolDefinition } from '../tools/types.ts';
import { MANAGEMENT_ROUTES } from './management-steps.ts';

/** Tools served on the team endpoint (the policy table's "team endpoint" row). */
const TEAM_TOOLS = new Set(['svc_multi_project_query']);

const ERROR_STATUSES: Record<string, string> = {
  '400': 'Malformed request (bad JSON, body not an object, oversized body) or arguments that fail the schema.',
  '401': 'Missing authentication, Invalid API key or Invalid OAuth token.',
  '403': 'Refused by the tool policy (access level, plan, surface or entitlement); the remedy says what is needed.',
  '404': 'Unknown tool or project.',
  '409': 'Conflict: the object is not in a state that allows it (management API).',
  '429': 'Rate limit exceeded, or Monthly query limit reached (see Retry-After).',
  '503': 'The store did not answer; retry after Retry-After seconds.',
};

const RATE_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed per minute for the plan.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current minute.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) when the window resets.', schema: { type: 'integer' } },
};

/** The error responses of `statuses`, each with the REST error body. */
function errorResponses(statuses: string[] = Object.keys(ERROR_STATUSES)) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: ERROR_STATUSES[status], content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    ]),
  );
}

function operation(tool: ToolDefinition, scope: 'project' | 'team') {
  return {
    operationId: scope === 'team' ? `${tool.name}_team` : tool.name,
    summary: tool.title,
    description: tool.description,
    tags: [scope === 'team' ? 'team tools' : 'project tools'],
    parameters: [{ $ref: scope === 'team' ? '#/components/parameters/team' : '#/components/parameters/slug' }],
    requestBody: { required: true, content: { 'application/json': { schema: tool.inputSchema } } },
    responses: {
      '200': {
        description: 'The tool result. isError true: a failure the caller should correct (argument values, a lease held by another).',
        headers: RATE_HEADERS,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ToolResult' } } },
      },
      ...errorResponses(),
    },
    ...(tool.annotations?.readOnlyHint ? { 'x-read-only': true } : {}),
  };
}

/** GET /api/v1/me, GET /api/v1/projects, DELETE /api/v1/me/key (rest/account-steps.ts). */
function accountPaths(): Record<string, unknown> {
  const ok = (description: string, schema: object) => ({ description, headers: RATE_HEADERS, content: { 'application/json': { schema } } });
  const key = {
    type: 'object',
    properties: {
      id: { type: 'string' },
      kind: { type: 'string', enum: [...API_KEY_KINDS] },
      name: { type: 'string' },
      prefix: { type: 'string', description: 'Safe-to-show start of the key.' },
      expires_at: { type: ['string', 'null'], format: 'date-time' },
      created_at: { type: ['string', 'null'], format: 'date-time' },
    },
  };
  return {
    '/api/v1/me': {
      get: {
        operationId: 'me',
        summary: 'Who the presented API key is',
        tags: ['account'],
        responses: {
          '200': ok('The key, its user (personal keys), workspace and plan.', {
            type: 'object',
            properties: {
              key,
              user: { type: ['object', 'null'], properties: { id: { type: 'string' }, email: { type: 'string' } } },
              workspace: { type: 'string' },
              plan: { type: 'string' },
            },
          }),
          ...errorResponses(['401', '429']),
        },
      },
    },
    '/api/v1/me/key': {
      delete: {
        operationId: 'revokeOwnKey',
        summary: 'Revoke the presented API key (svc logout); every replica refuses it within a second',
        tags: ['account'],
        responses: {
          '200': ok('The revoked key.', { type: 'object', properties: { revoked: key } }),
          ...errorResponses(['401', '429']),
        },
      },
    },
    '/api/v1/projects': {
      get: {
        operationId: 'projects',
        summary: 'The projects the presented API key reaches, with its role there',
        tags: ['account'],
        responses: {
          '200': ok('Projects.', {
            type: 'object',
            properties: {
              projects: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { slug: { type: 'string' }, workspace: { type: 'string' }, role: { type: 'string' } },
                },
              },
            },
          }),
          ...errorResponses(['401', '429']),
        },
      },
    },
  };
}

export function buildOpenApi(tools: ToolDefinition[], opts: { baseUrl: string }): object {
  const paths: Record<string, Record<string, unknown>> = accountPaths() as Record<string, Record<string, unknown>>;
  // The management API (docs/management.md "REST"): one operation per row of its route table.
  for (const r of MANAGEMENT_ROUTES) {
    const names = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    (paths[r.path] ??= {})[r.method.toLowerCase()] = {
      summary: r.name,
      tags: ['management'],
      parameters: [
        ...names.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        ...(r.query ?? []).map((q) => ({ name: q.name, in: 'query', required: false, description: q.description, schema: q.schema })),
      ],
      ...(r.method === 'POST' || r.method === 'PATCH'
        ? { requestBody: { required: false, content: { 'application/json': { schema: { type: 'object' } } } } }
        : {}),
      responses: {
        [r.creates ? '201' : '200']: { description: 'Done; the body describes the result.' },
        ...errorResponses(['400', '401', '403', '404', '409', '429', '503']),
      },
    };
  }
  paths['/api/v1/keys/report-leak'] = {
    post: {
      summary: 'report a leaked key: it is revoked; the same answer whether or not it existed; no credential needed',
      tags: ['management'],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'object', required: ['key'], properties: { key: { type: 'string' } } } } },
      },
      responses: { '202': { description: 'Reported.' }, ...errorResponses(['400']) },
    },
  };
  for (const tool of [...tools].sort((a, b) => a.name.localeCompare(b.name))) {
    if (TEAM_TOOLS.has(tool.name)) paths[`/api/v1/teams/{team}/tools/${tool.name}`] = { post: operation(tool, 'team') };
    else paths[`/api/v1/projects/{slug}/tools/${tool.name}`] = { post: operation(tool, 'project') };
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'svc REST API',
      version: '1',
      description:
        'The tools of the MCP endpoint over REST, with the same credentials, policy, rate limits and quota. ' +
        'The body of each request is the tool arguments object.',
    },
    servers: [{ url: opts.baseUrl }],
    security: [{ ApiKey: [] }, { Bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'Project key (svc-), service account key (svc-bot-) or personal key (svc-user-).',
        },
        Bearer: { type: 'http', scheme: 'bearer', description: 'OAuth access token (svc_at_) or an API key.' },
      },
      parameters: {
        slug: { name: 'slug', in: 'path', required: true, description: 'Project slug.', schema: { type: 'string' } },
        team: { name: 'team', in: 'path', required: true, description: 'Team (workspace) slug.', schema: { type: 'string' } },
      },
      schemas: {
        ToolResult: {
          type: 'object',
          required: ['content'],
          properties: {
            content: {
              type: 'array',
              description: 'Text for a model to read; the best match first.',
              items: { type: 'object', required: ['type', 'text'], properties: { type: { const: 'text' }, text: { type: 'string' } } },
            },
            structuredContent: { type: 'object', description: 'The same result as data.' },
            isError: { type: 'boolean', description: 'A failure the caller should correct.' },
          },
        },
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: {
                  type: 'string',
                  description: 'Machine code, e.g. missing_authentication, invalid_api_key, rate_limited, access_denied.',
                },
                message: { type: 'string', description: 'Human message, e.g. "Invalid API key".' },
                remedy: { type: 'string', description: 'What to do about it.' },
              },
            },
          },
        },
      },
    },
  };
}
