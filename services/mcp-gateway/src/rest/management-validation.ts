/**
 * The management API's request check (docs/management.md "The contract"): each operation's body
 * against its declared JSON Schema (@svc/management/check, ajv, once compiled per operation). The first problem is a
 * 400 naming the field (`error.field`); a property with a default that is left out gets it, so
 * the handler receives the body the declaration describes. Nothing else is changed: a property
 * of the wrong type is refused, never read as its default.
 */
import { SvcError } from '@svc/errors';
import { checkOf, type InputProblem } from '@svc/management/check';
import type { Step } from '../pipeline/exchange.ts';
import type { ManagementRoute } from './management/wire.ts';

/** The remedy of every refusal of a management request's input. */
const FIX_THE_FIELD = 'Fix the named field and send again.';

/**
 * The body of a POST or PATCH checked against its operation's schema, defaults filled in. The
 * schema is compiled here, as the route table is built at start-up (checkOf), never inside the
 * first request it checks.
 */
export function validateManagementRequest(route: ManagementRoute): Step {
  const check = route.declaration.body ? checkOf(route.declaration.body) : null;
  return function validateManagementRequestStep(ex) {
    if (ex.parseError) throw ex.parseError;
    if (check) checkBody(check, ex.body);
  };
}

/** Throws the 400 naming the field when `body` is not an object that passes `check`; fills its defaults. */
export function checkBody(check: (value: unknown) => InputProblem | null, body: unknown): void {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new SvcError('invalid_params', { message: 'Invalid params: the body must be a JSON object', remedy: FIX_THE_FIELD });
  const found = check(body);
  if (!found) return;
  const message = `Invalid params: "${found.field}" ${found.problem}`;
  throw new SvcError('invalid_params', { message, data: { field: found.field }, remedy: FIX_THE_FIELD });
}
