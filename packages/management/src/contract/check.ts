/**
 * The one check of a declared input (docs/management.md "The contract"): a management request's
 * body or a dashboard form against its JSON Schema, with ajv, compiled once per schema. The first
 * problem is returned with the field it is about; a property with a default that is left out
 * gets it. Nothing else is changed: a value of the wrong type is refused, never read as its default.
 * Apart from the contract's index, which the CLI imports without a validator.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { ObjectSchema } from './define.ts';

// allErrors off: the first problem is the one named, and a hostile input costs one failed check.
const ajv = new Ajv2020({ allErrors: false, useDefaults: true, strict: false });
const compiled = new WeakMap<ObjectSchema, ValidateFunction>();

/** The compiled check of a schema: once per declaration, however many apps are built. */
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

/** What is wrong with an input: the top-level field and what to say of it (`is required`, `must be a string`). */
export interface InputProblem {
  field: string;
  problem: string;
}

/** The field an ajv error is about and the words for its problem. */
function describe(e: ErrorObject): InputProblem {
  if (e.keyword === 'required') return { field: String(e.params['missingProperty']), problem: 'is required' };
  if (e.keyword === 'additionalProperties') return { field: String(e.params['additionalProperty']), problem: 'is not a known field' };
  const field = e.instancePath.slice(1).split('/')[0] ?? '';
  if (e.keyword === 'type') {
    const types = ([] as string[]).concat(e.params['type'] as string | string[]).map((t) => TYPE_NAMES[t] ?? t);
    return { field, problem: `must be ${types.join(' or ')}` };
  }
  if (e.keyword === 'enum') return { field, problem: `must be one of ${(e.params['allowedValues'] as unknown[]).join(', ')}` };
  return { field, problem: e.message ?? 'is invalid' };
}

/**
 * The check of `schema` (`value` checked, its defaults filled in place: the first problem, or null
 * when it fits), compiled now: a module that declares a schema calls this where it declares
 * it, so the compiling happens at start-up rather than inside the first request it checks (which
 * would hold the event loop for the compile, tens of milliseconds on a loaded machine).
 */
export function checkOf(schema: ObjectSchema): (value: unknown) => InputProblem | null {
  const validate = validatorOf(schema);
  return (value) => (validate(value) ? null : describe(validate.errors![0]!));
}
