/**
 * A key's controls (docs/management.md "Per-key limits", "Operations"): its own rate limit,
 * disabling and enabling it, its note and its IP allow-list, each changed by who may change the
 * key and audited.
 */
import type { ApiKeyRecord } from '@svc/accounts';
import type { ManagementContext } from './context.ts';
import type { AnswerOf } from './contract/define.ts';
import type * as contract from './contract/keys.ts';
import type { KeyChecks } from './key-checks.ts';
import { keyRow } from './key-rows.ts';
import { ManagementError, type KeyRow, type Actor } from './types.ts';

/** The controls of one project key: disabled, note, IP allow-list, own rate limit. */
export interface KeyControlOperations {
  /** Disables a key: every gateway refuses it within a second, until it is enabled again. */
  disableKey(actor: Actor, project: string, id: string): Promise<AnswerOf<typeof contract.disableKey>>;
  /** Enables a disabled key again. */
  enableKey(actor: Actor, project: string, id: string): Promise<AnswerOf<typeof contract.enableKey>>;
  /** A key's note (empty clears it). */
  setKeyNote(actor: Actor, project: string, id: string, input: { note: string }): Promise<AnswerOf<typeof contract.setKeyNote>>;
  /** A key's IP allow-list (empty: anywhere); an entry that is no address or CIDR is a 400 naming it. */
  setKeyAllowedIps(actor: Actor, project: string, id: string, entries: readonly string[]): Promise<KeyRow>;
  /** A key's own requests-per-minute limit, below the plan's (null: the plan's alone). */
  setKeyLimit(actor: Actor, project: string, id: string, rateLimit: string | number | null | undefined): Promise<KeyRow>;
}

/** The control operations of a project's keys (each is described on KeyControlOperations). */
export function keyControlOperations(ctx: ManagementContext, checks: KeyChecks): KeyControlOperations {
  const { accounts, now, note, keyTarget, projectFor } = ctx;
  const { keyOfProject, changeableKey, invalid, mayChangeKey, keyLimitOf } = checks;
  const row = (k: ApiKeyRecord): KeyRow => keyRow(k, now());

  /** Disables or enables a key (the two operations' one body); the key's id and status after it. */
  async function setDisabled(actor: Actor, slug: string, id: string, disabled: boolean) {
    const { project, key } = await changeableKey(actor, slug, id);
    if (key.disabled !== disabled) {
      await accounts.keys.setDisabled(key.id, disabled);
      await note(actor, project.workspace, disabled ? 'key.disabled' : 'key.enabled', keyTarget(key), { project: slug });
    }
    const changed = row({ ...key, disabled });
    return { id: changed.id, status: changed.status };
  }

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

    disableKey: (actor, slug, id) => setDisabled(actor, slug, id, true),
    enableKey: (actor, slug, id) => setDisabled(actor, slug, id, false),

    async setKeyNote(actor, slug, id, input) {
      const { project, key } = await changeableKey(actor, slug, id);
      const kept = await accounts.keys.setNote(key.id, input.note).catch(invalid('note'));
      await note(actor, project.workspace, 'key.note_changed', keyTarget(key), { project: slug });
      return { id: key.id, note: kept };
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
