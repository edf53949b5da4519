/**
 * The management API's request check (docs/management.md "The contract"): each operation's body
 * against its declared JSON Schema with ajv, once compiled per operation. The first problem is a
 * 400 naming the field (`error.field`); a property with a default that is left out gets it, so
 * the handler receives the body the declaration describes. Nothing else is changed: a property
 * of the wrong type is refused, never read as its default.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { SvcError } from '@svc/errors';
import type { ObjectSchema } from '@svc/management/contract';
import type { Step } from '../pipeline/exchange.ts';
import type { ManagementRoute } from './management/handle.ts';

/** The remedy of every refusal of a management request's input. */
export const FIX_THE_FIELD = 'Fix the named field and send again.';

// allErrors off: the first problem is the one named, and a hostile body costs one failed check.
const ajv = new Ajv2020({ allErrors: false, useDefaults: true, strict: false });
const compiled = new WeakMap<ObjectSchema, ValidateFunction>();

/** The compiled check of a body schema: once per declaration, however many apps are built. */
function validatorOf(schema: ObjectSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  return validate;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  null: 'null',
  array: 'an array',
  object: 'an object',
};

/** The field an ajv error is about and a sentence naming it. */
function describeBodyError(e: ErrorObject): { field: string; message: string } {
  if (e.keyword === 'required') {
    const field = String(e.params['missingProperty']);
    return { field, message: `Invalid params: "${field}" is required` };
  }
  const field = e.instancePath.slice(1).split('/')[0] ?? '';
  if (e.keyword === 'type') {
    const types = ([] as string[]).concat(e.params['type'] as string | string[]).map((t) => TYPE_NAMES[t] ?? t);
    return { field, message: `Invalid params: "${field}" must be ${types.join(' or ')}` };
  }
  if (e.keyword === 'enum')
    return { field, message: `Invalid params: "${field}" must be one of ${(e.params['allowedValues'] as unknown[]).join(', ')}` };
  return { field, message: `Invalid params: "${field}" ${e.message ?? 'is invalid'}` };
}

/** The body of a POST or PATCH checked against its operation's schema, defaults filled in. */
export function validateManagementRequest(route: ManagementRoute): Step {
  const schema = route.declaration.body;
  return function validateManagementRequestStep(ex) {
    if (ex.parseError) throw ex.parseError;
    if (schema) checkBody(schema, ex.body);
  };
}

/** Throws the 400 naming the field when `body` is not an object that fits `schema`; fills its defaults. */
export function checkBody(schema: ObjectSchema, body: unknown): void {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new SvcError('invalid_params', { message: 'Invalid params: the body must be a JSON object', remedy: FIX_THE_FIELD });
  const validate = validatorOf(schema);
  if (validate(body)) return;
  const { field, message } = describeBodyError(validate.errors![0]!);
  throw new SvcError('invalid_params', { message, data: { field }, remedy: FIX_THE_FIELD });
}
