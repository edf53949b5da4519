/**
 * PATCH requests (RFC 7644 §3.5.2) as Entra ID and Okta send them, made one shape: each operation's
 * `op` lower-cased (Entra ID sends `Replace`, `Add`), its `path` as given or null, its `value`. A
 * `replace` without a path carries an object of attributes (`{"active": false}`), which may be
 * spelled with dotted names (`{"name.givenName": "Ann"}`, as Entra ID does); those become one
 * operation per attribute with that path. Booleans may arrive as the strings "True" and "False"
 * (Entra ID); `booleanOf` reads them.
 */
import { ScimError } from '@svc/errors';
import { SCIM_MAX_PATCH_OPERATIONS } from '@svc/sso';

/** RFC 7644 §3.5.2: the schema a PATCH request names. */
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  /** The attribute path, as sent (a filter in brackets kept), or null. */
  path: string | null;
  value: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Flattens `{name: {givenName: 'A'}}` and `{'name.givenName': 'A'}` alike into path/value pairs. */
function attributesOf(value: Record<string, unknown>, prefix = ''): [string, unknown][] {
  return Object.entries(value).flatMap(([k, v]): [string, unknown][] =>
    isObject(v) && !k.includes(':') ? attributesOf(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]],
  );
}

/** The operations of a PATCH body; refused `invalidSyntax` when it is not a PatchOp request. */
export function patchOperations(body: unknown): PatchOperation[] {
  if (!isObject(body) || !Array.isArray(body['schemas']) || !body['schemas'].includes(PATCH_SCHEMA))
    throw new ScimError('invalidSyntax', `A PATCH body names the schema ${PATCH_SCHEMA}.`);
  const ops = body['Operations'];
  if (!Array.isArray(ops) || ops.length === 0) throw new ScimError('invalidSyntax', 'A PATCH body has a non-empty Operations list.');
  if (ops.length > SCIM_MAX_PATCH_OPERATIONS)
    throw new ScimError('invalidSyntax', `A PATCH body carries at most ${SCIM_MAX_PATCH_OPERATIONS} operations.`);
  const out: PatchOperation[] = [];
  for (const raw of ops as unknown[]) {
    if (!isObject(raw) || typeof raw['op'] !== 'string') throw new ScimError('invalidSyntax', 'Each operation has an "op".');
    const op = raw['op'].toLowerCase();
    if (op !== 'add' && op !== 'replace' && op !== 'remove')
      throw new ScimError('invalidSyntax', `"${raw['op'].slice(0, 20)}" is not add, replace or remove.`);
    const path = typeof raw['path'] === 'string' && raw['path'].trim() !== '' ? raw['path'].trim() : null;
    if (path === null && op === 'remove') throw new ScimError('noTarget', 'A remove operation names its path (RFC 7644 §3.5.2.2).');
    if (path === null && op !== 'remove') {
      if (!isObject(raw['value'])) throw new ScimError('invalidValue', `An ${op} without a path carries an object of attributes.`);
      for (const [p, v] of attributesOf(raw['value'])) out.push({ op, path: p, value: v });
    } else out.push({ op, path, value: raw['value'] });
  }
  return out;
}

/** A SCIM boolean: true or false, or the strings "True" and "False" in any case (Entra ID). */
export function booleanOf(value: unknown, attribute: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw new ScimError('invalidValue', `${attribute} is true or false.`);
}
