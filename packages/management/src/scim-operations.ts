/**
 * A workspace's SCIM tokens (docs/auth-service.md "SCIM provisioning"): the owner makes one (its
 * value shown once), lists the live ones and revokes them; each change is audited.
 */
import type { ScimTokenInfo } from '@svc/sso';
import type { ManagementContext } from './context.ts';
import type { AnswerOf } from './contract/define.ts';
import type * as contract from './contract/scim.ts';
import { ManagementError, type Actor } from './types.ts';
import { SCIM_MAX_TOKENS } from '@svc/sso/scim-bounds.ts';

/** The workspace's SCIM endpoint, its live tokens and how much the directory holds. */
export interface ScimView {
  endpoint: string;
  tokens: ScimTokenInfo[];
  users: number;
  groups: number;
}

/** A workspace's SCIM provisioning (docs/auth-service.md "SCIM provisioning"). */
export interface ScimOperations {
  /** The SCIM base URL to give the directory, the live tokens (never their values) and the directory's size. */
  scimSettings(actor: Actor, workspace: string): Promise<ScimView>;
  /** A new token; its value is in this answer only. At most SCIM_MAX_TOKENS live at once. */
  createScimToken(actor: Actor, workspace: string): Promise<ScimTokenInfo & { token: string; endpoint: string }>;
  revokeScimToken(actor: Actor, workspace: string, id: string): Promise<AnswerOf<typeof contract.revokeScimToken>>;
}

/** The operations of this group, on the shared context (each is described on ScimOperations). */
export function scimOperations(ctx: ManagementContext): ScimOperations {
  const { deps, note, ownerOf, now } = ctx;
  function scim() {
    if (!deps.scim) throw new ManagementError(404, 'SCIM provisioning is not available here.');
    return deps.scim;
  }
  const endpoint = (workspace: string) => `${deps.authUrl ?? ''}/scim/v2/${encodeURIComponent(workspace)}`;
  const target = (t: ScimTokenInfo) => `scim_token:${t.id} (${t.prefix})`;

  return {
    async scimSettings(actor, workspace) {
      const { tokens, directory } = scim();
      await ownerOf(actor, workspace, 'see SCIM provisioning');
      const [list, users, groups] = await Promise.all([
        tokens.list(workspace),
        directory.users.list(workspace),
        directory.groups.list(workspace),
      ]);
      return { endpoint: endpoint(workspace), tokens: list, users: users.length, groups: groups.length };
    },

    async createScimToken(actor, workspace) {
      const { tokens } = scim();
      await ownerOf(actor, workspace, 'make SCIM tokens');
      const made = await tokens.create(workspace, now());
      if (!made) throw new ManagementError(409, `A workspace holds at most ${SCIM_MAX_TOKENS} SCIM tokens: revoke one first.`);
      await note(actor, workspace, 'scim.token_created', target(made.info));
      return { ...made.info, token: made.value, endpoint: endpoint(workspace) };
    },

    async revokeScimToken(actor, workspace, id) {
      const { tokens } = scim();
      await ownerOf(actor, workspace, 'revoke SCIM tokens');
      const revoked = await tokens.revoke(workspace, id);
      if (!revoked) throw new ManagementError(404, 'This workspace has no such SCIM token.');
      await note(actor, workspace, 'scim.token_revoked', target(revoked));
      return { id, revoked: true };
    },
  };
}
