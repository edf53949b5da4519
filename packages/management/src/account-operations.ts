/**
 * What a person manages of their own (docs/management.md "Authorized apps"): their apps, personal keys,
 * access requests and password.
 */
import { AccountError, checkPassword, endPersonalCredentials } from '@svc/accounts';
import { approvedLevel } from '@svc/policy';
import type { ManagementContext } from './context.ts';
import type { AnswerOf } from './contract/define.ts';
import type * as contract from './contract/me.ts';
import { parsePageQuery, type PageInput } from './list-page.ts';
import { ManagementError, type AccountInfo, type Actor, type AppRow, type MyRequestRow } from './types.ts';

/** The signed-in person's own apps, personal keys and access requests. */
export interface AccountOperations {
  /** The apps (MCP clients) the person authorized with OAuth (docs/management.md "Authorized apps"). */
  myApps(actor: Actor): Promise<AppRow[]>;
  revokePersonalKey(actor: Actor, id: string): Promise<AnswerOf<typeof contract.revokePersonalKey>>;
  /** The access requests the signed-in person made, with their status (docs/management.md). */
  myAccessRequests(actor: Actor, page?: PageInput): Promise<{ requests: MyRequestRow[]; next: string | null }>;
  /** Ends an OAuth grant the person gave an app: its tokens stop at every gateway within a second. */
  revokeApp(actor: Actor, id: string): Promise<AnswerOf<typeof contract.revokeApp>>;
}

/** The account page's own calls: no operation of the management API. */
export interface AccountInternals {
  /** The signed-in person's address, whether it is confirmed, and their live personal keys. */
  account(actor: Actor): Promise<AccountInfo>;
  /** The signed-in person's new password, after their current one (docs/management.md). */
  changePassword(actor: Actor, current: string, next: string): Promise<void>;
}

/** The operations of this group, on the shared context (each is described on AccountOperations). */
export function accountOperations(ctx: ManagementContext): AccountOperations & AccountInternals {
  const { accounts, now, note, keyTarget, personOf } = ctx;
  return {
    async account(actor) {
      const userId = personOf(actor, 'have an account page');
      const keys = (await accounts.keys.listForUser(userId)).filter((k) => !k.revoked && (k.expiresAt === null || k.expiresAt > now()));
      const user = await accounts.users.get(userId);
      return {
        email: actor.label,
        emailVerified: user?.emailVerifiedAt ? true : false,
        personalKeys: keys.map((k) => ({
          id: k.id,
          client: k.clientId || k.name,
          prefix: k.prefix,
          createdAt: k.createdAt,
          expiresAt: k.expiresAt,
          lastUsedAt: k.lastUsedAt,
        })),
      };
    },

    async myApps(actor) {
      // The refusal says what it said when the apps came with the account page.
      const userId = personOf(actor, 'have an account page');
      return (await accounts.oauthGrants.listForUser(userId)).map((g) => ({
        id: g.id,
        client: g.clientName,
        clientId: g.clientId,
        // The level approved on the consent page, as the gateway reads it (docs/auth-service.md "Scopes").
        projects: g.projects.map((p) => `${p.slug} (${approvedLevel(p.scope)})`),
        scopes: g.projects.map((p) => ({ project: p.slug, scope: p.scope })),
        createdAt: g.createdAt,
        expiresAt: g.expiresAt,
        lastUsedAt: g.lastUsedAt,
      }));
    },

    async myAccessRequests(actor, input) {
      const { cursor, limit } = parsePageQuery(input);
      const userId = personOf(actor, 'follow your access requests');
      const page = await accounts.accessRequests.pageForUser(userId, cursor, limit);
      const requests = page.requests.map((r) => ({
        id: r.id,
        project: r.project,
        level: r.requested_level,
        status: r.status,
        grantedLevel: r.granted_level,
        createdAt: Date.parse(r.created_at),
        decidedAt: r.decided_at ? Date.parse(r.decided_at) : null,
      }));
      return { requests, next: page.next };
    },

    async revokeApp(actor, id) {
      const userId = personOf(actor, 'revoke authorized apps');
      const grant = await accounts.oauthGrants.get(id);
      if (!grant || grant.accountId !== userId) throw new ManagementError(404, 'There is no such app authorized by you.');
      await accounts.oauthGrants.revoke(id);
      const user = await accounts.users.get(userId);
      if (user)
        await note(actor, user.workspace, 'oauth_app.revoked', `client:${grant.clientId} ("${grant.clientName}")`, {
          projects: grant.projects.map((p) => p.slug).join(' '),
        });
      return { id, revoked: true };
    },

    async revokePersonalKey(actor, id) {
      const userId = personOf(actor, 'revoke personal keys');
      const key = await accounts.keys.getById(id);
      if (!key || key.userId !== userId || key.kind !== 'user_key')
        throw new ManagementError(404, 'There is no such personal key of yours.');
      await accounts.keys.revoke(id);
      const user = await accounts.users.get(userId);
      if (user) await note(actor, user.workspace, 'personal_key.revoked', keyTarget(key));
      return { id, revoked: true };
    },

    async changePassword(actor, current, next) {
      const userId = personOf(actor, 'change a password');
      const user = await accounts.users.get(userId);
      if (!user || !(await accounts.users.verifyPassword(user.email, current)))
        throw new ManagementError(400, 'The current password is not right.', 'current');
      try {
        checkPassword(next);
      } catch (err) {
        if (!(err instanceof AccountError)) throw err;
        throw new ManagementError(400, `${err.message.charAt(0).toUpperCase()}${err.message.slice(1)}.`, 'password');
      }
      await accounts.users.setPassword(user.id, next);
      // docs/auth-service.md "What a new password ends": reset links (the new epoch), personal keys
      // and apps' grants; the caller ends the other browser sessions.
      const ended = await endPersonalCredentials(accounts, user.id);
      await note(actor, user.workspace, 'password.changed', `user:${user.email}`, {
        personal_keys_revoked: String(ended.keys),
        oauth_apps_revoked: String(ended.apps),
      });
    },
  };
}
