/**
 * The OpenAPI 3.1 document of the REST API, generated from the same ToolDefinitions (and so the
 * same JSON Schemas) that tools/list publishes and ajv enforces: one path per tool at
 * POST /api/v1/projects/{slug}/tools/{tool}, and the team form for svc_multi_project_query.
 * Who may call what is the policy table's business (svc_help explains it); the document lists every tool.
 */
import { API_KEY_KINDS } from '@svc/credentials';
import { REFUSAL } from '@svc/management/contract';
import type { ToolDefinition } from '../tools/types.ts';
import { managementPaths } from './management-openapi.ts';
import { errorResponses, RATE_HEADERS } from './openapi-common.ts';

/** Tools served on the team endpoint (the policy table's "team endpoint" row). */
const TEAM_TOOLS = new Set(['svc_multi_project_query']);

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
  // The management API (docs/management.md "REST"): every operation from its declaration.
  Object.assign(paths, managementPaths());
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
      // OpenAPI 3.1 §4.8.4: a License Object may name its licence by SPDX identifier instead of a URL.
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
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
        Error: REFUSAL,
      },
    },
  };
}
