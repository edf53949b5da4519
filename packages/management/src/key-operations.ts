/**
 * A project's keys (docs/management.md "Operations"): every member sees them; an EDITOR creates VIEWER
 * and EDITOR keys and revokes or rolls keys up to EDITOR; an ADMIN does all of it; a VIEWER only
 * looks. A key reported as leaked is revoked whoever reports it. A key's controls (its limit,
 * status, note and allow-list) are in key-control-operations.ts, the checks both share in key-checks.ts.
 */
import { nameProblem } from '@svc/accounts';
import { isKeyLevel, type KeyLevel } from '@svc/policy';
import { CREATABLE, MAX_NAME, type ManagementContext } from './context.ts';
import { KEY_DEFAULTS } from './contract/defaults.ts';
import type { AnswerOf } from './contract/define.ts';
import type * as contract from './contract/keys.ts';
import { keyChecks } from './key-checks.ts';
import { keyControlOperations, type KeyControlOperations } from './key-control-operations.ts';
import { keyFilterOf, keyRows } from './key-rows.ts';
import { overlapSecondsOf } from './overlap.ts';
import { ManagementError, type NewKey, type Actor, type KeyFilter, type KeyRow } from './types.ts';

/** A project's API keys: listed, created, revoked, rolled. */
export interface KeyOperations {
  /** The project's keys the filter selects (a status or search that is not valid is a 400 naming it). */
  listKeys(
    actor: Actor,
    project: string,
    filter?: KeyFilter,
  ): Promise<{ keys: KeyRow[]; creatableLevels: readonly KeyLevel[]; canRevoke: boolean }>;
  createKey(
    actor: Actor,
    project: string,
    input: {
      name: string;
      level: string;
      expires: string;
      rateLimit?: string | number | null;
      note?: string;
      allowedIps?: readonly string[];
    },
  ): Promise<NewKey>;
  revokeKey(actor: Actor, project: string, id: string): Promise<AnswerOf<typeof contract.revokeKey>>;
  rollKey(actor: Actor, project: string, id: string, overlap: string): Promise<NewKey>;
}

/** A leaked key reported: no operation of the management API's table (it takes no credential but the key). */
export interface KeyInternals {
  /**
   * A key's value reported as leaked: the key is revoked and the report recorded. Holding the key
   * is proof enough; the answer is the same whether or not it existed.
   */
  reportLeak(key: string, from: { source: string; requestId: string }): Promise<void>;
}

/** The operations of this group, on the shared context (each is described on KeyOperations). */
export function keyOperations(ctx: ManagementContext): KeyOperations & KeyControlOperations & KeyInternals {
  const { accounts, now, note, full, keyTarget, projectFor } = ctx;
  const checks = keyChecks(ctx);
  const { keyOfProject, invalid, mayChangeKey, expiryOf, keyLimitOf } = checks;

  return {
    async listKeys(actor, slug, filter) {
      const { role } = await projectFor(actor, slug);
      const checked = keyFilterOf(filter);
      const keys = keyRows(
        (await accounts.keys.listForProject(slug)).filter((k) => k.kind === 'project_key'),
        now(),
        checked,
      );
      return { keys, creatableLevels: CREATABLE[role], canRevoke: CREATABLE[role].length > 0 };
    },

    async createKey(actor, slug, input) {
      const { project, role } = await projectFor(actor, slug);
      const keyNameProblem = nameProblem('key', input.name, MAX_NAME);
      if (keyNameProblem) throw new ManagementError(400, keyNameProblem, 'name');
      if (CREATABLE[role].length === 0) throw new ManagementError(403, `Your role on this project (${role}) cannot create keys.`);
      const level = input.level;
      if (!isKeyLevel(level) || !CREATABLE[role].includes(level))
        throw new ManagementError(400, `Your role (${role}) can create ${CREATABLE[role].join(' or ') || 'no'} keys.`, 'level');
      const expiresInSeconds = expiryOf(input.expires);
      const rateLimit = await keyLimitOf(project.workspace, input.rateLimit);
      const issued = await accounts.keys
        .createProjectKey({
          project: slug,
          workspace: project.workspace,
          level,
          name: input.name,
          rateLimit,
          note: input.note ?? '',
          allowedIps: input.allowedIps ?? [],
          ...(expiresInSeconds ? { expiresInSeconds } : {}),
        })
        .catch(invalid('allowedIps'))
        .catch(full);
      await note(actor, project.workspace, 'key.created', keyTarget(issued.record), {
        project: slug,
        level,
        expires: input.expires,
        ...(rateLimit ? { rate_limit: `${rateLimit}/min` } : {}),
        ...(issued.record.allowedIps.length ? { allowed_ips: issued.record.allowedIps.join(' ') } : {}),
      });
      return { id: issued.id, key: issued.key, name: input.name, level, expiresAt: issued.record.expiresAt, rateLimit } satisfies NewKey;
    },

    ...keyControlOperations(ctx, checks),

    async revokeKey(actor, slug, id) {
      const { project, role } = await projectFor(actor, slug);
      const key = await keyOfProject(slug, id);
      mayChangeKey(role, key);
      await accounts.keys.revoke(key.id);
      await note(actor, project.workspace, 'key.revoked', keyTarget(key), { project: slug });
      return { id, revoked: true };
    },

    async rollKey(actor, slug, id, overlap) {
      const { project, role } = await projectFor(actor, slug);
      const old = await keyOfProject(slug, id);
      mayChangeKey(role, old);
      if (old.revoked) throw new ManagementError(409, 'This key is revoked; create a new one instead.');
      // docs/management.md "Operations": a key that has ended is not brought back by a roll.
      if (old.expiresAt !== null && old.expiresAt <= now())
        throw new ManagementError(409, 'This key has expired; create a new one instead.');
      const overlapSeconds = overlapSecondsOf(overlap);
      const remaining = old.expiresAt === null ? undefined : Math.max(1, Math.round((old.expiresAt - old.createdAt) / 1000));
      const issued = await accounts.keys
        .createProjectKey({
          project: slug,
          workspace: project.workspace,
          level: old.level || KEY_DEFAULTS.unleveled,
          name: old.name,
          rateLimit: old.rateLimit,
          note: old.note,
          allowedIps: old.allowedIps,
          ...(remaining ? { expiresInSeconds: remaining } : {}),
        })
        .catch(full);
      await accounts.keys.markReplaced(old.id, issued.id);
      // The old key ends when the overlap does, or sooner when its own expiry comes first: the
      // end reported is the one the key record holds.
      let until = now();
      if (overlapSeconds === 0) await accounts.keys.revoke(old.id);
      else until = (await accounts.keys.expireAt(old.id, until + overlapSeconds * 1000)).expiresAt ?? until;
      await note(actor, project.workspace, 'key.rolled', keyTarget(old), {
        project: slug,
        replacement: `key:${issued.id} (${issued.record.prefix})`,
        old_key_until: new Date(until).toISOString(),
      });
      return {
        id: issued.id,
        key: issued.key,
        name: old.name,
        level: old.level,
        expiresAt: issued.record.expiresAt,
        rateLimit: old.rateLimit,
        replacedUntil: until,
      };
    },

    async reportLeak(value, from) {
      const key = await accounts.keys.verify(value).catch(() => null);
      if (!key) return;
      await accounts.keys.revoke(key.id);
      const workspace = key.workspace || (key.userId ? (await accounts.users.get(key.userId))?.workspace : undefined);
      if (workspace)
        await accounts.audit.record({
          workspace,
          actor: 'leak report',
          action: 'key.reported',
          target: keyTarget(key),
          source: from.source,
          requestId: from.requestId,
        });
    },
  };
}
