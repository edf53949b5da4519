/**
 * The SCIM Groups endpoints (RFC 7644 §3.3-§3.6): a group's members are SCIM users of the
 * workspace; its displayName is what the workspace's SSO policy maps to a role. A change of a
 * group's name or members sets the role of each person it touches again (provisioning.ts).
 * PATCH reads Entra ID's and Okta's shapes: `add`/`remove`/`replace` of `members` with a list of
 * `{value}`, `remove` of `members[value eq "<id>"]`, and `replace` of displayName or externalId,
 * with or without a path.
 */
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { ScimError } from '@svc/errors';
import { SCIM_MAX_GROUP_MEMBERS, SCIM_MAX_GROUPS, type ScimDirectory, type ScimGroup } from '@svc/sso';
import { parseFilter } from './filter.ts';
import { pageOf, queryText } from './paging.ts';
import { patchOperations, type PatchOperation } from './patch.ts';
import type { ScimCaller, ScimProvisioning } from './provisioning.ts';
import { groupOut, listOut } from './resources.ts';
import { baseOf, callerOf, sendScim } from './respond.ts';

const FILTERABLE = ['displayname', 'externalid', 'id'] as const;
const MEMBER_PATH = /^members\[\s*value\s+eq\s+"([^"]*)"\s*\]$/i;

type GroupFields = Pick<ScimGroup, 'displayName' | 'externalId' | 'members'>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function name(value: unknown, attribute: string, required: boolean): string | null {
  if ((value === undefined || value === null || value === '') && !required) return null;
  if (typeof value !== 'string' || value.trim() === '' || value.length > 256)
    throw new ScimError('invalidValue', `${attribute} is a string of 1 to 256 characters.`);
  return value.trim();
}

function memberIds(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((m) => {
    if (!isObject(m) || typeof m['value'] !== 'string')
      throw new ScimError('invalidValue', 'A member is {"value": USER_ID}, the SCIM id of a user.');
    return m['value'];
  });
}

function groupFields(body: unknown): GroupFields {
  if (!isObject(body)) throw new ScimError('invalidSyntax', 'The body is a SCIM Group object.');
  return {
    displayName: name(body['displayName'], 'displayName', true)!,
    externalId: name(body['externalId'], 'externalId', false),
    members: [...new Set(memberIds(body['members']))],
  };
}

/** Applies a PATCH's operations to a group (RFC 7644 §3.5.2). */
function patchGroup(fields: GroupFields, ops: PatchOperation[]): GroupFields {
  let { displayName, externalId, members } = fields;
  for (const { op, path, value } of ops) {
    const p = (path ?? '').toLowerCase();
    const one = MEMBER_PATH.exec(path ?? '');
    if (one && op === 'remove') members = members.filter((m) => m !== one[1]);
    else if (p === 'members' && op === 'add') members = [...new Set([...members, ...memberIds(value)])];
    else if (p === 'members' && op === 'remove') {
      const gone = value === undefined ? new Set(members) : new Set(memberIds(value));
      members = members.filter((m) => !gone.has(m));
    } else if (p === 'members' && op === 'replace') members = [...new Set(memberIds(value))];
    else if (p === 'displayname' && op !== 'remove') displayName = name(value, 'displayName', true)!;
    else if (p === 'externalid') externalId = op === 'remove' ? null : name(value, 'externalId', false);
    else if (p === 'id') {
      // Okta's replace without a path repeats the group's id: the same value is no change.
    } else if (p.startsWith('members'))
      throw new ScimError('invalidPath', `svc reads members and members[value eq "USER_ID"], not ${path}.`);
  }
  return { displayName, externalId, members };
}

export function groupRoutes(deps: { directory: ScimDirectory; provisioning: ScimProvisioning; now: () => number }) {
  const { directory, provisioning } = deps;

  async function existing(req: Request): Promise<{ caller: ScimCaller; group: ScimGroup }> {
    const caller = callerOf(req);
    const group = await directory.groups.get(caller.workspace, String(req.params['id']));
    if (!group) throw new ScimError('not_found', `There is no group ${String(req.params['id']).slice(0, 80)} in this workspace.`);
    return { caller, group };
  }

  /** Saves the group (new, or `before` changed), then sets again the role of each person it touched. */
  async function save(caller: ScimCaller, group: ScimGroup, before: ScimGroup | null): Promise<void> {
    if (group.members.length > SCIM_MAX_GROUP_MEMBERS)
      throw new ScimError('invalidValue', `A group holds at most ${SCIM_MAX_GROUP_MEMBERS} members.`);
    for (const id of group.members)
      if (!before?.members.includes(id) && !(await directory.users.get(caller.workspace, id)))
        throw new ScimError('invalidValue', `There is no user ${id.slice(0, 80)} in this workspace to make a member.`);
    const refused = await directory.groups.save(caller.workspace, group.id, group, before);
    if (refused === 'taken') throw new ScimError('uniqueness', `A group named ${group.displayName} exists in this workspace.`);
    if (refused === 'full') throw new ScimError('forbidden', `A workspace's directory holds at most ${SCIM_MAX_GROUPS} groups.`);
    await reapply(caller, group, before);
  }

  async function reapply(caller: ScimCaller, group: ScimGroup | null, before: ScimGroup | null): Promise<void> {
    const touched = new Set([...(group?.members ?? []), ...(before?.members ?? [])]);
    for (const id of touched) {
      const user = await directory.users.get(caller.workspace, id);
      if (user?.active) await provisioning.apply(caller, user);
    }
    await provisioning.audit(caller, 'scim.group_changed', `group:${group?.displayName ?? before?.displayName ?? ''}`, {
      members: String(group?.members.length ?? 0),
      ...(group ? {} : { removed: 'true' }),
    });
  }

  const out = (req: Request, g: ScimGroup) => {
    const excluded = queryText(req.query as Record<string, unknown>, 'excludedAttributes') ?? '';
    return groupOut(g, baseOf(req), !/\bmembers\b/i.test(excluded));
  };

  return {
    async list(req: Request, res: Response): Promise<void> {
      const caller = callerOf(req);
      const query = req.query as Record<string, unknown>;
      const filter = queryText(query, 'filter');
      const { startIndex, count } = pageOf(query);
      const terms = filter ? parseFilter(filter, FILTERABLE) : [];
      const all = (await directory.groups.list(caller.workspace))
        .filter((g) =>
          terms.every((t) => {
            if (t.attribute === 'members.value') return g.members.includes(String(t.value));
            if (t.attribute === 'displayname') return g.displayName.toLowerCase() === String(t.value).toLowerCase();
            return (t.attribute === 'id' ? g.id : g.externalId) === t.value;
          }),
        )
        .sort((a, b) => a.created - b.created || a.id.localeCompare(b.id));
      sendScim(
        res,
        200,
        listOut(
          all.slice(startIndex - 1, startIndex - 1 + count).map((g) => out(req, g)),
          all.length,
          startIndex,
        ),
      );
    },

    async get(req: Request, res: Response): Promise<void> {
      sendScim(res, 200, out(req, (await existing(req)).group));
    },

    async create(req: Request, res: Response): Promise<void> {
      const caller = callerOf(req);
      const now = deps.now();
      const group: ScimGroup = { id: randomUUID(), ...groupFields(req.body), created: now, lastModified: now };
      await save(caller, group, null);
      sendScim(res, 201, out(req, group), `${baseOf(req)}/Groups/${group.id}`);
    },

    async replace(req: Request, res: Response): Promise<void> {
      const { caller, group } = await existing(req);
      const next = { ...group, ...groupFields(req.body), lastModified: deps.now() };
      await save(caller, next, group);
      sendScim(res, 200, out(req, next));
    },

    async patch(req: Request, res: Response): Promise<void> {
      const { caller, group } = await existing(req);
      const next = { ...group, ...patchGroup(group, patchOperations(req.body)), lastModified: deps.now() };
      await save(caller, next, group);
      // RFC 7644 §3.5.2: 204 when the client did not ask for attributes back (Entra ID expects either).
      sendScim(res, 200, out(req, next));
    },

    async remove(req: Request, res: Response): Promise<void> {
      const { caller, group } = await existing(req);
      await directory.groups.remove(caller.workspace, group.id, group);
      await reapply(caller, null, group);
      res.status(204).end();
    },
  };
}
