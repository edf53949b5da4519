/**
 * The SCIM Users endpoints (RFC 7644 §3.3-§3.6): list with `userName eq`/`externalId eq` filters
 * and pages, read, create, replace, PATCH (Entra ID's and Okta's shapes, patch.ts) and delete.
 * Deactivating (`active: false`) or deleting a user ends their access in the workspace
 * (provisioning.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { ScimError } from '@svc/errors';
import type { ScimDirectory, ScimUser } from '@svc/sso';
import { SCIM_MAX_USERS } from '@svc/sso';
import { parseFilter } from './filter.ts';
import { pageOf, queryText } from './paging.ts';
import { patchOperations } from './patch.ts';
import type { ScimCaller, ScimProvisioning } from './provisioning.ts';
import { listOut, patchUser, userFields, userOut, type UserFields } from './resources.ts';
import { baseOf, callerOf, sendScim } from './respond.ts';

const FILTERABLE = ['username', 'externalid', 'id', 'displayname', 'active'] as const;

function matches(u: ScimUser, attribute: string, value: string | boolean): boolean {
  if (attribute === 'active') return u.active === value;
  const have = { username: u.userName, externalid: u.externalId, id: u.id, displayname: u.displayName }[attribute];
  // RFC 7643 §4.1.1: userName is case-insensitive; externalId and id are case-exact.
  return attribute === 'username' || attribute === 'displayname'
    ? typeof have === 'string' && typeof value === 'string' && have.toLowerCase() === value.toLowerCase()
    : have === value;
}

export function userRoutes(deps: { directory: ScimDirectory; provisioning: ScimProvisioning; now: () => number }) {
  const { directory, provisioning } = deps;

  async function existing(req: Request): Promise<{ caller: ScimCaller; user: ScimUser }> {
    const caller = callerOf(req);
    const user = await directory.users.get(caller.workspace, String(req.params['id']));
    if (!user) throw new ScimError('not_found', `There is no user ${String(req.params['id']).slice(0, 80)} in this workspace.`);
    return { caller, user };
  }

  /** Saves the changed fields of `user`, then makes svc's access match them. */
  async function change(caller: ScimCaller, user: ScimUser, fields: UserFields): Promise<ScimUser> {
    const next: ScimUser = { ...user, ...fields, email: user.email, lastModified: deps.now() };
    if ((await directory.users.save(caller.workspace, user.id, next, user)) === 'taken')
      throw new ScimError('uniqueness', `Another user of this workspace has the userName ${fields.userName}.`);
    if (next.active !== user.active) await provisioning.notOwner(caller.workspace, user.userId);
    await provisioning.apply(caller, next);
    if (next.active !== user.active || next.userName !== user.userName)
      await provisioning.audit(caller, 'scim.user_changed', `user:${user.email}`, { active: String(next.active), userName: next.userName });
    return next;
  }

  return {
    async list(req: Request, res: Response): Promise<void> {
      const caller = callerOf(req);
      const query = req.query as Record<string, unknown>;
      const filter = queryText(query, 'filter');
      const { startIndex, count } = pageOf(query);
      const terms = filter ? parseFilter(filter, FILTERABLE) : [];
      const all = (await directory.users.list(caller.workspace))
        .filter((u) => terms.every((t) => matches(u, t.attribute, t.value)))
        .sort((a, b) => a.created - b.created || a.id.localeCompare(b.id));
      const page = all.slice(startIndex - 1, startIndex - 1 + count).map((u) => userOut(u, baseOf(req)));
      sendScim(res, 200, listOut(page, all.length, startIndex));
    },

    async get(req: Request, res: Response): Promise<void> {
      sendScim(res, 200, userOut((await existing(req)).user, baseOf(req)));
    },

    async create(req: Request, res: Response): Promise<void> {
      const caller = callerOf(req);
      const fields = userFields(req.body);
      const email = (fields.userName.includes('@') ? fields.userName : (fields.email ?? '')).toLowerCase();
      if (await directory.users.named(caller.workspace, fields.userName))
        throw new ScimError('uniqueness', `A user with the userName ${fields.userName} exists in this workspace.`);
      const account = await provisioning.accountFor(caller.workspace, email);
      await provisioning.notOwner(caller.workspace, account.id);
      if ((await directory.users.list(caller.workspace)).some((u) => u.userId === account.id))
        throw new ScimError('uniqueness', `The account of ${email} is another user of this workspace already.`);
      const now = deps.now();
      const user: ScimUser = { id: randomUUID(), ...fields, userId: account.id, email, created: now, lastModified: now };
      const refused = await directory.users.save(caller.workspace, user.id, user, null);
      if (refused === 'taken') throw new ScimError('uniqueness', `A user with the userName ${fields.userName} exists in this workspace.`);
      if (refused === 'full') throw new ScimError('forbidden', `A workspace's directory holds at most ${SCIM_MAX_USERS} users.`);
      await provisioning.apply(caller, user);
      await provisioning.audit(caller, 'scim.user_provisioned', `user:${email}`, { active: String(user.active) });
      sendScim(res, 201, userOut(user, baseOf(req)), `${baseOf(req)}/Users/${user.id}`);
    },

    async replace(req: Request, res: Response): Promise<void> {
      const { caller, user } = await existing(req);
      sendScim(res, 200, userOut(await change(caller, user, userFields(req.body)), baseOf(req)));
    },

    async patch(req: Request, res: Response): Promise<void> {
      const { caller, user } = await existing(req);
      const fields = patchUser(user, patchOperations(req.body));
      sendScim(res, 200, userOut(await change(caller, user, fields), baseOf(req)));
    },

    async remove(req: Request, res: Response): Promise<void> {
      const { caller, user } = await existing(req);
      await provisioning.notOwner(caller.workspace, user.userId);
      // Out of its groups first, so the access it ends is not given back by a group's role.
      for (const g of await directory.groups.list(caller.workspace))
        if (g.members.includes(user.id))
          await directory.groups.save(caller.workspace, g.id, { ...g, members: g.members.filter((m) => m !== user.id) }, g);
      await provisioning.apply(caller, { ...user, active: false });
      await directory.users.remove(caller.workspace, user.id, user);
      res.status(204).end();
    },
  };
}
