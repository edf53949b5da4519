/**
 * A workspace's service accounts (docs/management.md "Service accounts"): the owner lists them,
 * creates one with its first key, grants it a level on a project, rotates its key with an overlap
 * and revokes it; a revoked service account stays revoked.
 */
import { AccountError, nameProblem } from '@svc/accounts';
import { isKeyLevel, type KeyLevel } from '@svc/policy';
import { MAX_NAME, type ManagementContext } from './context.ts';
import type { AnswerOf } from './contract/define.ts';
import type * as contract from './contract/service-accounts.ts';
import { overlapSecondsOf } from './overlap.ts';
import { ManagementError, type Actor, type ServiceAccountRow } from './types.ts';

/** A workspace's service accounts (docs/management.md "Service accounts"): the owner's. */
export interface ServiceAccountOperations {
  listServiceAccounts(actor: Actor, workspace: string): Promise<{ bots: ServiceAccountRow[]; projects: string[]; canManage: boolean }>;
  createServiceAccount(actor: Actor, workspace: string, name: string): Promise<{ id: string; bot: string; key: string }>;
  /** Grants the service account a project of the workspace at a level. */
  grantServiceAccount(
    actor: Actor,
    workspace: string,
    id: string,
    input: { project: string; level: string },
  ): Promise<AnswerOf<typeof contract.grantServiceAccount>>;
  /** A new key; the old one works for `overlap` more (0m: ends now). A revoked service account is a 409. */
  rotateServiceAccount(
    actor: Actor,
    workspace: string,
    id: string,
    overlap: string,
  ): Promise<{ id: string; bot: string; key: string; oldKeyUntil: number | null }>;
  revokeServiceAccount(actor: Actor, workspace: string, id: string): Promise<AnswerOf<typeof contract.revokeServiceAccount>>;
}

/** The service-account operations, on the shared context (each is described on ServiceAccountOperations). */
export function serviceAccountOperations(ctx: ManagementContext): ServiceAccountOperations {
  const { accounts, note, full, ownerOf } = ctx;
  return {
    async listServiceAccounts(actor, workspace) {
      await ownerOf(actor, workspace, 'manage service accounts');
      const bots = await accounts.bots.listForWorkspace(workspace);
      const rows = await Promise.all(
        bots.map(async (b) => {
          const key = await accounts.keys.getById(b.keyId);
          return {
            id: b.id,
            name: b.name,
            grants: b.grants,
            keyPrefix: key && !key.revoked ? key.prefix : null,
            createdAt: b.createdAt,
            revoked: b.revoked,
          };
        }),
      );
      return { bots: rows, projects: await accounts.workspaces.projectsOf(workspace), canManage: true };
    },

    async createServiceAccount(actor, workspace, name) {
      await ownerOf(actor, workspace, 'create service accounts');
      const botNameProblem = nameProblem('service account', name, MAX_NAME);
      if (botNameProblem) throw new ManagementError(400, botNameProblem, 'name');
      const { bot, key } = await accounts.bots.create({ workspace, name }).catch(full);
      await note(actor, workspace, 'service_account.created', `service_account:${bot.id} ("${bot.name}")`, { key: key.record.prefix });
      return { id: bot.id, bot: bot.name, key: key.key };
    },

    async grantServiceAccount(actor, workspace, id, { project, level }) {
      await ownerOf(actor, workspace, 'grant service accounts');
      const bot = await accounts.bots.get(id);
      if (!bot || bot.workspace !== workspace) throw new ManagementError(404, 'There is no such service account in this workspace.');
      if (!(await accounts.workspaces.projectsOf(workspace)).includes(project))
        throw new ManagementError(404, `There is no project ${project} in this workspace.`);
      if (!isKeyLevel(level)) throw new ManagementError(400, 'Choose VIEWER, EDITOR or ADMIN.', 'level');
      await accounts.bots.grant(id, project, level as KeyLevel);
      await note(actor, workspace, 'service_account.granted', `service_account:${id} ("${bot.name}")`, { project, level });
      return { id, project, level };
    },

    async rotateServiceAccount(actor, workspace, id, overlap) {
      await ownerOf(actor, workspace, 'rotate service account keys');
      const bot = await accounts.bots.get(id);
      if (!bot || bot.workspace !== workspace) throw new ManagementError(404, 'There is no such service account in this workspace.');
      const overlapSeconds = overlapSecondsOf(overlap);
      // docs/management.md "Service accounts": a revoked service account stays revoked.
      if (bot.revoked)
        throw new ManagementError(409, `The service account ${bot.name} is revoked: it gets no new key. Create a new one instead.`);
      const issued = await accounts.bots.rotateKey(id, overlapSeconds).catch(async (err: unknown) => {
        if (!(err instanceof AccountError && err.code === 'conflict')) throw err;
        if ((await accounts.bots.get(id))?.revoked !== false)
          throw new ManagementError(409, `The service account ${bot.name} is revoked: it gets no new key. Create a new one instead.`);
        // Another rotation of it was made meanwhile (rotateKey): its key is the account's one new key.
        throw new ManagementError(
          409,
          `The service account ${bot.name} was given a new key by another request just now; rotate again for another.`,
        );
      });
      await note(actor, workspace, 'service_account.key_rotated', `service_account:${id} ("${bot.name}")`, {
        key: issued.record.prefix,
        old_key_until: issued.oldKeyUntil === null ? 'now' : new Date(issued.oldKeyUntil).toISOString(),
      });
      return { id: bot.id, bot: bot.name, key: issued.key, oldKeyUntil: issued.oldKeyUntil };
    },

    async revokeServiceAccount(actor, workspace, id) {
      await ownerOf(actor, workspace, 'revoke service accounts');
      const bot = await accounts.bots.get(id);
      if (!bot || bot.workspace !== workspace) throw new ManagementError(404, 'There is no such service account in this workspace.');
      await accounts.bots.revoke(id);
      await note(actor, workspace, 'service_account.revoked', `service_account:${id} ("${bot.name}")`);
      return { id, revoked: true };
    },
  };
}
