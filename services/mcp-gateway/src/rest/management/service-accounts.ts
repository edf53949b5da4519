/** The routes of a workspace's service accounts (docs/management.md "Operations"). */
import type { ServiceAccountClient } from '@svc/management';
import { handle, iso, type ManagementRoute } from './handle.ts';

export const SERVICE_ACCOUNT_ROUTES: readonly ManagementRoute[] = [
  handle('listServiceAccounts', async (m, a, { params }) => {
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
  }),
  handle('createServiceAccount', async (m, a, { params, body }) => {
    const r = await m.createServiceAccount(a, params.workspace, body.name.trim());
    return { status: 201, body: { id: r.id, name: r.bot, key: r.key } };
  }),
  handle('grantServiceAccount', async (m, a, { params, body }) => {
    await m.grantServiceAccount(a, params.workspace, params.id, body.project, body.level);
    return { body: { id: params.id, project: body.project, level: body.level } };
  }),
  handle('rotateServiceAccount', async (m, a, { params, body }) => {
    const r = await m.rotateServiceAccount(a, params.workspace, params.id, body.overlap);
    return { status: 201, body: { id: r.id, name: r.bot, key: r.key, old_key_until: iso(r.oldKeyUntil) } };
  }),
  handle('revokeServiceAccount', async (m, a, { params }) => {
    await m.revokeServiceAccount(a, params.workspace, params.id);
    return { body: { id: params.id, revoked: true } };
  }),
  handle('getServiceAccountClient', async (m, a, { params }) => ({
    body: clientAnswer(await m.getServiceAccountClient(a, params.workspace, params.id)),
  })),
  handle('setServiceAccountClientKeys', async (m, a, { params, body }) => {
    const input = {
      ...(body.jwks === undefined ? {} : { jwks: body.jwks }),
      ...(body.jwks_uri === undefined ? {} : { jwksUri: body.jwks_uri }),
    };
    return { body: clientAnswer(await m.setServiceAccountClientKeys(a, params.workspace, params.id, input)) };
  }),
  handle('removeServiceAccountClientKeys', async (m, a, { params }) => ({
    body: { id: params.id, removed: await m.removeServiceAccountClientKeys(a, params.workspace, params.id) },
  })),
];

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
