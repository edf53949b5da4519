/** The routes of a workspace's SCIM tokens (docs/auth-service.md "SCIM provisioning"). */
import type { ScimTokenInfo } from '@svc/sso';
import { handle, iso, type ManagementRoute } from './handle.ts';

const tokenOut = (t: ScimTokenInfo) => ({ id: t.id, prefix: t.prefix, created_at: iso(t.createdAt) });

export const SCIM_ROUTES: readonly ManagementRoute[] = [
  handle('scimSettings', async (m, a, { params }) => {
    const v = await m.scimSettings(a, params.workspace);
    return { body: { endpoint: v.endpoint, tokens: v.tokens.map(tokenOut), users: v.users, groups: v.groups } };
  }),
  handle('createScimToken', async (m, a, { params }) => {
    const made = await m.createScimToken(a, params.workspace);
    return { status: 201, body: { ...tokenOut(made), token: made.token, endpoint: made.endpoint } };
  }),
  handle('revokeScimToken', async (m, a, { params }) => {
    await m.revokeScimToken(a, params.workspace, params.id);
    return { body: { id: params.id, revoked: true } };
  }),
];
