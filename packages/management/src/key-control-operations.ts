/**
 * A key's controls (docs/management.md "Per-key limits", "Operations"): its own rate limit,
 * disabling and enabling it, its note and its IP allow-list, each changed by who may change the
 * key and audited.
 */
import type { ApiKeyRecord } from '@svc/accounts';
import type { ManagementContext } from './context.ts';
import type { KeyChecks } from './key-checks.ts';
import { keyRow } from './key-rows.ts';
import type { Management } from './management.ts';
import { ManagementError, type KeyRow } from './types.ts';

/** The control operations of a project's keys (each is described on Management). */
export function keyControlOperations(
  ctx: ManagementContext,
  checks: KeyChecks,
): Pick<Management, 'setKeyLimit' | 'setKeyDisabled' | 'setKeyNote' | 'setKeyAllowedIps'> {
  const { accounts, now, note, keyTarget, projectFor } = ctx;
  const { keyOfProject, changeableKey, invalid, mayChangeKey, keyLimitOf } = checks;
  const row = (k: ApiKeyRecord): KeyRow => keyRow(k, now());

  return {
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
  };
}
