/**
 * The SCIM discovery endpoints (RFC 7644 §4): what svc offers, so a directory configures itself.
 * PATCH and filtering yes; bulk, sorting, ETags and password changes no; bearer tokens only.
 */
import { SCIM_MAX_BODY_BYTES, SCIM_MAX_PAGE } from '@svc/sso';
import { GROUP_SCHEMA, LIST_SCHEMA, USER_SCHEMA } from './resources.ts';

const attribute = (
  name: string,
  o: { type?: string; required?: boolean; mutability?: string; uniqueness?: string; multiValued?: boolean } = {},
) => ({
  name,
  type: o.type ?? 'string',
  multiValued: o.multiValued ?? false,
  required: o.required ?? false,
  caseExact: false,
  mutability: o.mutability ?? 'readWrite',
  returned: 'default',
  uniqueness: o.uniqueness ?? 'none',
});

/** RFC 7643 §5: the service provider's configuration. */
export function serviceProviderConfig(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    documentationUri: 'https://datatracker.ietf.org/doc/html/rfc7644',
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: SCIM_MAX_PAGE },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Bearer token',
        description: "The workspace's SCIM token (svc-scim-...), made by its owner.",
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig`, maxPayloadSize: SCIM_MAX_BODY_BYTES },
  };
}

/** RFC 7643 §6: the resource types. */
export function resourceTypes(base: string) {
  const type = (name: string, endpoint: string, schema: string) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: name,
    name,
    endpoint,
    schema,
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/${name}` },
  });
  const list = [type('User', '/Users', USER_SCHEMA), type('Group', '/Groups', GROUP_SCHEMA)];
  return { schemas: [LIST_SCHEMA], totalResults: list.length, startIndex: 1, itemsPerPage: list.length, Resources: list };
}

/** RFC 7643 §7: the attributes svc keeps of each resource. */
export function schemas(base: string) {
  const schema = (id: string, name: string, attributes: unknown[]) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id,
    name,
    attributes,
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${id}` },
  });
  const list = [
    schema(USER_SCHEMA, 'User', [
      attribute('userName', { required: true, uniqueness: 'server' }),
      attribute('externalId'),
      attribute('displayName'),
      { ...attribute('name', { type: 'complex' }), subAttributes: [attribute('givenName'), attribute('familyName')] },
      {
        ...attribute('emails', { type: 'complex', multiValued: true }),
        subAttributes: [attribute('value'), attribute('type'), attribute('primary', { type: 'boolean' })],
      },
      attribute('active', { type: 'boolean' }),
    ]),
    schema(GROUP_SCHEMA, 'Group', [
      attribute('displayName', { required: true, uniqueness: 'server' }),
      attribute('externalId'),
      { ...attribute('members', { type: 'complex', multiValued: true }), subAttributes: [attribute('value', { mutability: 'immutable' })] },
    ]),
  ];
  return { schemas: [LIST_SCHEMA], totalResults: list.length, startIndex: 1, itemsPerPage: list.length, Resources: list };
}
