/**
 * How a dashboard form is declared and read (docs/dashboard.md "Forms"): each POST route has one
 * form, its path and its fields as a JSON Schema (the management contract's body schema where the
 * operation is the same, else one declared beside the route), checked with ajv as the management
 * API checks its bodies. A field missing, of the wrong type or sent twice is a 400 naming it.
 */
import type { Request } from 'express';
import { ManagementError } from '@svc/management';
import { checkOf, type InputProblem } from '@svc/management/check';
import type { InputOf, ObjectSchema, OperationId } from '@svc/management/contract';

/**
 * One dashboard form: the management operation it performs (null for the account pages' own
 * changes: a password, a session), the POST route (under /dashboard) and the fields it reads. The
 * operation's declared rules apply in the management layer; the generated tests find them here.
 */
export interface DashboardForm<S extends ObjectSchema = ObjectSchema> {
  readonly operation: OperationId | null;
  readonly path: string;
  readonly schema: S;
  /** The check of a post's fields, compiled when the form is declared (at start-up, not in a request). */
  readonly check: (value: unknown) => InputProblem | null;
}

/** Declares a form, keeping its literal schema type (from which the values' type comes). */
export function defineForm<const S extends ObjectSchema>(operation: OperationId | null, path: string, schema: S): DashboardForm<S> {
  return { operation, path, schema, check: checkOf(fieldsOf(schema)) };
}

/** A form whose button is all it sends (besides its CSRF token). */
export const NO_FIELDS = { type: 'object', properties: {} } as const;

/** A destructive form's second step: `confirm=yes` alone acts (docs/dashboard.md "Confirmation"). */
export const CONFIRM_FIELDS = { type: 'object', properties: { confirm: { type: 'string' } } } as const;

const OPENED = new WeakMap<ObjectSchema, ObjectSchema>();

/**
 * What a form's post is checked against: its fields. A form declared with an operation's body takes
 * its fields, not its refusal of undeclared ones (docs/management.md "The contract"): a post also
 * carries the page's own fields (the CSRF token, a confirmation), as it always has.
 */
function fieldsOf(schema: ObjectSchema): ObjectSchema {
  if (schema.additionalProperties !== false) return schema;
  let opened = OPENED.get(schema);
  if (!opened) OPENED.set(schema, (opened = { ...schema, additionalProperties: true }));
  return opened;
}

/**
 * The form's fields as its schema declares them, defaults filled; a problem is a ManagementError
 * 400 naming the field, which the route shows on the form again (kit.ts `submit`) or as a page.
 */
export function formOf<S extends ObjectSchema>(req: Request, form: DashboardForm<S>): InputOf<S> {
  // express.urlencoded gives an object for a form body; anything else (no body, another type) has no fields.
  const body = req.body && typeof req.body === 'object' ? { ...(req.body as Record<string, unknown>) } : {};
  const found = form.check(body);
  if (found) {
    const problem = Array.isArray(body[found.field]) ? 'was sent more than once' : found.problem;
    throw new ManagementError(400, `The field "${found.field}" ${problem}.`, found.field);
  }
  // Checked against the schema just now; the type comes from it at each call (a generic instance here is TS2589).
  return body as never;
}
