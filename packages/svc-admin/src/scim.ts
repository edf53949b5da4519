/**
 * svc-admin scim show|create-token|revoke-token (docs/contract.md "Operator interface",
 * docs/auth-service.md "SCIM provisioning"): the API's SCIM operations through the management
 * layer, audited with actor `service:svc-admin`. A new token is in the answer that makes it only.
 */
import type { ScimTokenInfo } from '@svc/sso';
import { operatorActor, req, type Command } from './command-kit.ts';

const iso = (ms: number) => new Date(ms).toISOString();
const tokenOut = (t: ScimTokenInfo) => ({ id: t.id, prefix: t.prefix, created_at: iso(t.createdAt) });

export const SCIM_COMMANDS: Record<string, Command> = {
  'scim show': async (_a, o, io) => {
    const v = await io.management.scimSettings(operatorActor(), req(o, 'workspace'));
    return { endpoint: v.endpoint, tokens: v.tokens.map(tokenOut), users: v.users, groups: v.groups };
  },
  'scim create-token': async (_a, o, io) => {
    const made = await io.management.createScimToken(operatorActor(), req(o, 'workspace'));
    return { ...tokenOut(made), token: made.token, endpoint: made.endpoint };
  },
  'scim revoke-token': async (_a, o, io) => {
    await io.management.revokeScimToken(operatorActor(), req(o, 'workspace'), req(o, 'id'));
    return { id: req(o, 'id'), revoked: true };
  },
};
