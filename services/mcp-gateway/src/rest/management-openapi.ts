/**
 * The management API's part of the OpenAPI document (docs/management.md "The contract"): every
 * operation from its declaration, with its path and query parameters, its request body and the
 * schema of each success answer, as the gateway validates and answers them.
 */
import { MANAGEMENT_OPERATIONS, REPORT_LEAK, type ObjectSchema, type OperationDeclaration } from '@svc/management/contract';
import { errorResponses, RATE_HEADERS } from './openapi-common.ts';

const SUCCESS: Record<number, string> = {
  200: 'Done; the body describes the result.',
  201: 'Created; the body describes what was made.',
  202: 'Accepted; the body says what happens next.',
};

/** The properties of an object schema as OpenAPI parameters of `where`. */
function parametersOf(schema: ObjectSchema | undefined, where: 'path' | 'query') {
  const s = (schema ?? {}) as { properties?: Record<string, { description?: string }>; required?: readonly string[] };
  return Object.entries(s.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (s.required ?? []).includes(name),
    ...(property.description ? { description: property.description } : {}),
    schema: property,
  }));
}

function operationOf(id: string, op: OperationDeclaration, opts: { errors: string[]; authenticated: boolean }) {
  return {
    operationId: id,
    summary: op.summary,
    tags: ['management'],
    ...(opts.authenticated ? {} : { security: [] }),
    parameters: [...parametersOf(op.params, 'path'), ...parametersOf(op.query, 'query')],
    ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: op.body } } } } : {}),
    responses: {
      ...Object.fromEntries(
        op.statuses.map((status) => [
          String(status),
          {
            description: SUCCESS[status],
            ...(opts.authenticated ? { headers: RATE_HEADERS } : {}),
            content: {
              'application/json': { schema: op.answer },
              ...(op.streams ? { 'application/x-ndjson': { schema: { type: 'string', description: op.streams } } } : {}),
            },
          },
        ]),
      ),
      ...errorResponses(opts.errors),
    },
  };
}

/** The paths of every management operation and of the leaked-key report. */
export function managementPaths(): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [id, op] of Object.entries(MANAGEMENT_OPERATIONS) as [string, OperationDeclaration][])
    (paths[op.path] ??= {})[op.method.toLowerCase()] = operationOf(id, op, {
      errors: ['400', '401', '403', '404', '409', '429', '503'],
      authenticated: true,
    });
  paths[REPORT_LEAK.path] = { post: operationOf('reportLeak', REPORT_LEAK, { errors: ['400'], authenticated: false }) };
  return paths;
}
