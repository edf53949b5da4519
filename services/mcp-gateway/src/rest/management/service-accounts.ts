/**
 * The wire adapters of a workspace's service accounts (docs/management.md "Operations"): the list,
 * the new keys and the OAuth client in the wire's names and times. Granting, revoking and removing
 * the client's keys answer as the layer does.
 */
import type { ServiceAccountClient } from '@svc/management';
import { iso, type WireAdapters } from './wire.ts';

export const SERVICE_ACCOUNT_ADAPTERS = {
  listServiceAccounts: async (m, a, { params }) => {
    const r = await m.listServiceAccounts(a, params.workspace);
    return {
      body: {
        service_accounts: r.bots.map((x) => ({
          id: x.id,
          name: x.name,
          grants: x.grants,
          key_prefix: x.keyPrefix,
          created_at: iso(x.createdAt),
          revoked: x.revoked,
        })),
      },
    };
  },
  createServiceAccount: async (m, a, { params, body }) => {
    const r = await m.createServiceAccount(a, params.workspace, body.name.trim());
    return { status: 201, body: { id: r.id, name: r.bot, key: r.key } };
  },
  rotateServiceAccount: async (m, a, { params, body }) => {
    const r = await m.rotateServiceAccount(a, params.workspace, params.id, body.overlap);
    return { status: 201, body: { id: r.id, name: r.bot, key: r.key, old_key_until: iso(r.oldKeyUntil) } };
  },
  getServiceAccountClient: async (m, a, { params }) => ({
    body: clientAnswer(await m.getServiceAccountClient(a, params.workspace, params.id)),
  }),
  setServiceAccountClientKeys: async (m, a, { params, body }) => {
    const input = {
      ...(body.jwks === undefined ? {} : { jwks: body.jwks }),
      ...(body.jwks_uri === undefined ? {} : { jwksUri: body.jwks_uri }),
    };
    return { body: clientAnswer(await m.setServiceAccountClientKeys(a, params.workspace, params.id, input)) };
  },
} satisfies WireAdapters;

function clientAnswer(c: ServiceAccountClient) {
  return {
    id: c.id,
    client_id: c.clientId,
    token_endpoint: c.tokenEndpoint,
    token_endpoint_auth_method: 'private_key_jwt' as const,
    resources: c.resources,
    jwks: c.jwks,
    jwks_uri: c.jwksUri,
  };
}
