/**
 * The wire adapters of a workspace's SCIM tokens (docs/auth-service.md "SCIM provisioning"): the
 * tokens in the wire's names and times. Revoking one answers as the layer does.
 */
import type { ScimTokenInfo } from '@svc/sso';
import { iso, type WireAdapters } from './wire.ts';

const tokenOut = (t: ScimTokenInfo) => ({ id: t.id, prefix: t.prefix, created_at: iso(t.createdAt) });

export const SCIM_ADAPTERS = {
  scimSettings: async (m, a, { params }) => {
    const v = await m.scimSettings(a, params.workspace);
    return { body: { endpoint: v.endpoint, tokens: v.tokens.map(tokenOut), users: v.users, groups: v.groups } };
  },
  createScimToken: async (m, a, { params }) => {
    const made = await m.createScimToken(a, params.workspace);
    return { status: 201, body: { ...tokenOut(made), token: made.token, endpoint: made.endpoint } };
  },
} satisfies WireAdapters;
