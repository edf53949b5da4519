/** The JSON-RPC 2.0 request envelope, validated with ajv (one schema, one message per problem). */
import { Ajv, type JSONSchemaType } from 'ajv';
import type { JsonRpcId } from '@svc/errors';
import { SvcError } from '@svc/errors';

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id?: string | number | null;
  method: string;
  params?: Record<string, unknown>;
}

const schema: JSONSchemaType<JsonRpcRequest> = {
  type: 'object',
  properties: {
    jsonrpc: { type: 'string', const: '2.0' },
    id: { type: ['string', 'integer', 'null'], nullable: true } as never,
    method: { type: 'string', minLength: 1, maxLength: 256 },
    params: { type: 'object', nullable: true, required: [] },
  },
  required: ['jsonrpc', 'method'],
  additionalProperties: false,
};

const validate = new Ajv({ allErrors: false, allowUnionTypes: true }).compile(schema);

/** The id of a parsed body when it has a usable one, else null (for error responses). */
export function idOf(body: unknown): JsonRpcId {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const id = (body as { id?: unknown }).id;
    if (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) return id;
  }
  return null;
}

/** The request, or invalid_request naming what is wrong. */
export function asRequest(body: unknown): JsonRpcRequest {
  if (Array.isArray(body)) {
    throw new SvcError('invalid_request', {
      message: 'Invalid Request: batches (JSON arrays) are not supported; send one request object per POST',
    });
  }
  if (body === null || typeof body !== 'object') {
    throw new SvcError('invalid_request', { message: 'Invalid Request: the body must be a JSON-RPC 2.0 request object' });
  }
  if (!validate(body)) {
    const e = validate.errors?.[0];
    const where = e?.instancePath
      ? e.instancePath.slice(1)
      : e?.params && 'additionalProperty' in e.params
        ? String(e.params['additionalProperty'])
        : (e?.params as { missingProperty?: string } | undefined)?.missingProperty;
    const what =
      e?.keyword === 'additionalProperties'
        ? 'is not a JSON-RPC member'
        : e?.keyword === 'required'
          ? 'is required'
          : e?.keyword === 'const'
            ? 'must be "2.0"'
            : (e?.message ?? 'is invalid');
    throw new SvcError('invalid_request', { message: `Invalid Request: ${where ?? 'the request'} ${what}` });
  }
  return body;
}
