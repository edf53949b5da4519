/**
 * A project's keys (docs/management.md "Operations"): every member sees them; an EDITOR creates VIEWER
 * and EDITOR keys and revokes or rolls keys up to EDITOR; an ADMIN does all of it; a VIEWER only
 * looks. A key reported as leaked is revoked whoever reports it.
 */
import { AccountError, nameProblem, parseDuration, type ApiKeyRecord } from '@svc/accounts';
import { isKeyLevel, planLimits, type KeyLevel, type Role } from '@svc/policy';
import { CREATABLE, MAX_NAME, type ManagementContext } from './context.ts';
import { KEY_DEFAULTS } from './contract/defaults.ts';
import { keyFilterOf, keyRow, keyRows } from './key-rows.ts';
import type { Management } from './management.ts';
import { overlapSecondsOf } from './overlap.ts';
import { ManagementError, type KeyRow, type NewKey } from './types.ts';

/** The operations of this group, on the shared context (each is described on Management). */
export function keyOperations(
  ctx: ManagementContext,
): Pick<
  Management,
  'keys' | 'createKey' | 'setKeyLimit' | 'setKeyDisabled' | 'setKeyNote' | 'setKeyAllowedIps' | 'revokeKey' | 'rollKey' | 'reportLeak'
> {
  const { accounts, now, note, full, keyTarget, projectFor } = ctx;
  const row = (k: ApiKeyRecord): KeyRow => keyRow(k, now());

  async function keyOfProject(slug: string, id: string): Promise<ApiKeyRecord> {
    const key = await accounts.keys.getById(id);
    if (!key || key.project !== slug || key.kind !== 'project_key') throw new ManagementError(404, 'There is no such key in this project.');
    return key;
  }

  /**
   * A key the actor may change that can still work: revoked and expired keys are a 409 (nothing
   * about them matters any more).
   */
  async function changeableKey(actor: Parameters<Management['keys']>[0], slug: string, id: string) {
    const { project, role } = await projectFor(actor, slug);
    const key = await keyOfProject(slug, id);
    mayChangeKey(role, key);
    if (key.revoked) throw new ManagementError(409, 'This key is revoked; it cannot be changed.');
    if (key.expiresAt !== null && key.expiresAt <= now()) throw new ManagementError(409, 'This key has expired; it cannot be changed.');
    return { project, key };
  }

  /** The account model's refusal of an input as a 400 naming `field`. */
  const invalid =
    (field: string) =>
    (err: unknown): never => {
      if (err instanceof AccountError && err.code === 'invalid') throw new ManagementError(400, capitalized(err.message), field);
      throw err;
    };

  function mayChangeKey(role: Role, key: ApiKeyRecord): void {
    const level = key.level || 'ADMIN';
    if (!CREATABLE[role].includes(level as KeyLevel))
      throw new ManagementError(403, `Your role (${role}) cannot change ${level} keys; ask a project admin.`);
  }

  function expiryOf(text: string): number | undefined {
    if (text === 'never') return undefined;
    try {
      return parseDuration(text, 'Expiry');
    } catch (err) {
      throw new ManagementError(400, (err as Error).message, 'expires');
    }
  }

  /**
   * A key's own limit as asked for: empty or null for none, else a whole number from 1 to the
   * plan's requests per minute (docs/management.md "Per-key limits").
   */
  async function keyLimitOf(workspace: string, value: string | number | null | undefined): Promise<number | null> {
    if (value === undefined || value === null || value === '') return null;
    const plan = (await accounts.workspaces.get(workspace))?.plan ?? 'FREE';
    const ceiling = planLimits(plan).requestsPerMinute;
    const n = typeof value === 'number' ? value : /^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > ceiling)
      throw new ManagementError(
        400,
        `A key's limit is a whole number of requests per minute from 1 to ${ceiling} (the ${plan} plan's limit), or empty for the plan's.`,
        'rateLimit',
      );
    return n;
  }

  return {
    async keys(actor, slug, filter) {
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

    async setKeyLimit(actor, slug, id, value) {
      const { project, role } = await projectFor(actor, slug);
      const key = await keyOfProject(slug, id);
      mayChangeKey(role, key);
      if (value === undefined) throw new ManagementError(400, 'Say the limit: a number of requests per minute, or none.', 'rateLimit');
      if (key.revoked) throw new ManagementError(409, 'This key is revoked; its limit no longer matters.');
      const rateLimit = await keyLimitOf(project.workspace, value);
      await accounts.keys.setRateLimit(key.id, rateLimit);
      await note(actor, project.workspace, 'key.limit_changed', keyTarget(key), {
        project: slug,
        rate_limit: rateLimit ? `${rateLimit}/min` : 'plan',
      });
      return row({ ...key, rateLimit });
    },

    async setKeyDisabled(actor, slug, id, disabled) {
      const { project, key } = await changeableKey(actor, slug, id);
      if (key.disabled === disabled) return row(key);
      await accounts.keys.setDisabled(key.id, disabled);
      await note(actor, project.workspace, disabled ? 'key.disabled' : 'key.enabled', keyTarget(key), { project: slug });
      return row({ ...key, disabled });
    },

    async setKeyNote(actor, slug, id, text) {
      const { project, key } = await changeableKey(actor, slug, id);
      const kept = await accounts.keys.setNote(key.id, text).catch(invalid('note'));
      await note(actor, project.workspace, 'key.note_changed', keyTarget(key), { project: slug });
      return row({ ...key, note: kept });
    },

    async setKeyAllowedIps(actor, slug, id, entries) {
      const { project, key } = await changeableKey(actor, slug, id);
      const allowedIps = await accounts.keys.setAllowedIps(key.id, entries).catch(invalid('allowedIps'));
      await note(actor, project.workspace, 'key.allowed_ips_changed', keyTarget(key), {
        project: slug,
        allowed_ips: allowedIps.join(' ') || 'anywhere',
      });
      return row({ ...key, allowedIps });
    },

    async revokeKey(actor, slug, id) {
      const { project, role } = await projectFor(actor, slug);
      const key = await keyOfProject(slug, id);
      mayChangeKey(role, key);
      await accounts.keys.revoke(key.id);
      await note(actor, project.workspace, 'key.revoked', keyTarget(key), { project: slug });
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

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1) + (text.endsWith('.') ? '' : '.');
