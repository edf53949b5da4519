/**
 * SCIM resources as svc writes and reads them (RFC 7643 §4.1 User, §4.2 Group, RFC 7644 §3.4.2
 * ListResponse): what svc keeps of a person (userName, externalId, displayName, name, the work
 * address, active) and the rest of what a directory sends ignored (RFC 7644 §3.3: the service
 * provider decides which attributes it keeps). `id` and `meta` are svc's: a change is `mutability`.
 */
import { ScimError } from '@svc/errors';
import { SCIM_MAX_STRING, type ScimGroup, type ScimUser } from '@svc/sso';
import { booleanOf, type PatchOperation } from './patch.ts';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** The attributes of a user a directory writes. */
export type UserFields = Pick<ScimUser, 'userName' | 'externalId' | 'displayName' | 'givenName' | 'familyName' | 'active'> & {
  email: string | null;
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function text(value: unknown, attribute: string, required = false): string | null {
  if (value === undefined || value === null || value === '') {
    if (required) throw new ScimError('invalidValue', `${attribute} is required.`);
    return null;
  }
  if (typeof value !== 'string' || value.length > SCIM_MAX_STRING)
    throw new ScimError('invalidValue', `${attribute} is a string of at most ${SCIM_MAX_STRING} characters.`);
  return value.trim();
}

/** The work address of `emails` (RFC 7643 §4.1.2): the primary one, else the first of type work, else the first. */
function emailOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw new ScimError('invalidValue', 'emails is a list of {value, type, primary}.');
  const list = value.filter(isObject);
  const chosen = list.find((e) => e['primary'] === true || e['primary'] === 'True') ?? list.find((e) => e['type'] === 'work') ?? list[0];
  return chosen ? text(chosen['value'], 'emails.value') : null;
}

/** A user's attributes from a POST or PUT body (RFC 7644 §3.3, §3.5.1). */
export function userFields(body: unknown): UserFields {
  if (!isObject(body)) throw new ScimError('invalidSyntax', 'The body is a SCIM User object.');
  if (body['id'] !== undefined && typeof body['id'] !== 'string') throw new ScimError('mutability', 'id is assigned by svc.');
  const name = isObject(body['name']) ? body['name'] : {};
  return {
    userName: text(body['userName'], 'userName', true)!,
    externalId: text(body['externalId'], 'externalId'),
    displayName: text(body['displayName'], 'displayName'),
    givenName: text(name['givenName'], 'name.givenName'),
    familyName: text(name['familyName'], 'name.familyName'),
    email: emailOf(body['emails']),
    active: body['active'] === undefined ? true : booleanOf(body['active'], 'active'),
  };
}

/** Applies a PATCH's operations to a user's attributes (RFC 7644 §3.5.2); unknown attributes are ignored. */
export function patchUser(fields: UserFields, ops: PatchOperation[]): UserFields {
  const next = { ...fields };
  for (const { op, path, value } of ops) {
    const p = (path ?? '').toLowerCase();
    const v = op === 'remove' ? null : value;
    if (p === 'id' || p.startsWith('meta')) throw new ScimError('mutability', `${path} is svc's and cannot change.`);
    if (p === 'active') next.active = op === 'remove' ? false : booleanOf(v, 'active');
    else if (p === 'username') next.userName = text(v, 'userName', true)!;
    else if (p === 'externalid') next.externalId = text(v, 'externalId');
    else if (p === 'displayname') next.displayName = text(v, 'displayName');
    else if (p === 'name.givenname') next.givenName = text(v, 'name.givenName');
    else if (p === 'name.familyname') next.familyName = text(v, 'name.familyName');
    else if (p === 'name' && isObject(v)) {
      next.givenName = text(v['givenName'], 'name.givenName');
      next.familyName = text(v['familyName'], 'name.familyName');
    } else if (p.startsWith('emails[') && p.endsWith('.value')) next.email = text(v, 'emails.value');
    else if (p === 'emails') next.email = emailOf(v) ?? next.email;
  }
  return next;
}

const meta = (resourceType: string, location: string, created: number, lastModified: number) => ({
  resourceType,
  created: new Date(created).toISOString(),
  lastModified: new Date(lastModified).toISOString(),
  location,
  // RFC 7644 §3.14: a weak version; svc offers no If-Match (etag.supported is false).
  version: `W/"${lastModified}"`,
});

/** A user as SCIM answers it (RFC 7643 §4.1). */
export function userOut(u: ScimUser, base: string) {
  return {
    schemas: [USER_SCHEMA],
    id: u.id,
    ...(u.externalId ? { externalId: u.externalId } : {}),
    userName: u.userName,
    ...(u.displayName ? { displayName: u.displayName } : {}),
    name: { ...(u.givenName ? { givenName: u.givenName } : {}), ...(u.familyName ? { familyName: u.familyName } : {}) },
    emails: [{ value: u.email, type: 'work', primary: true }],
    active: u.active,
    meta: meta('User', `${base}/Users/${u.id}`, u.created, u.lastModified),
  };
}

/** A group as SCIM answers it (RFC 7643 §4.2); `members` left out when excludedAttributes asks. */
export function groupOut(g: ScimGroup, base: string, withMembers = true) {
  return {
    schemas: [GROUP_SCHEMA],
    id: g.id,
    ...(g.externalId ? { externalId: g.externalId } : {}),
    displayName: g.displayName,
    ...(withMembers ? { members: g.members.map((id) => ({ value: id, $ref: `${base}/Users/${id}`, type: 'User' })) } : {}),
    meta: meta('Group', `${base}/Groups/${g.id}`, g.created, g.lastModified),
  };
}

/** A page of a list (RFC 7644 §3.4.2): startIndex is 1-based. */
export function listOut<T>(resources: T[], total: number, startIndex: number) {
  return { schemas: [LIST_SCHEMA], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources };
}
