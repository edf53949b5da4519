/**
 * A SCIM client for the tests: no maintained SCIM client is published on npm (docs/decisions.md
 * "SCIM"), so requests are built from RFC 7644's examples and from the shapes Entra ID and Okta
 * document for their provisioning (the tables in scim.test.ts name each one's source).
 */
export interface ScimAnswer {
  status: number;
  type: string;
  body: Record<string, unknown> & {
    id?: string;
    schemas?: string[];
    status?: string;
    scimType?: string;
    detail?: string;
    totalResults?: number;
    Resources?: Record<string, unknown>[];
  };
}

export function scimClient(base: string, token: string) {
  return async function scim(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ScimAnswer> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/scim+json',
        ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: text ? (JSON.parse(text) as ScimAnswer['body']) : {} };
  };
}

export const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** Okta's "create user" request (Okta's SCIM 2.0 guide): userName, name, emails, active, no externalId. */
export const oktaUser = (email: string) => ({
  schemas: [USER],
  userName: email,
  name: { givenName: 'Ann', familyName: 'Okta' },
  emails: [{ primary: true, value: email, type: 'work' }],
  displayName: 'Ann Okta',
  locale: 'en-US',
  externalId: `okta-${email}`,
  groups: [],
  password: 'ignored-by-svc',
  active: true,
});

/** Entra ID's "create user" request (Microsoft's SCIM guide): the enterprise extension, externalId the object id. */
export const entraUser = (email: string, externalId: string) => ({
  schemas: [USER, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
  externalId,
  userName: email,
  active: true,
  emails: [{ primary: true, type: 'work', value: email }],
  meta: { resourceType: 'User' },
  name: { formatted: 'Bob Entra', familyName: 'Entra', givenName: 'Bob' },
  roles: [],
  'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Engineering', manager: { value: 'x' } },
});
