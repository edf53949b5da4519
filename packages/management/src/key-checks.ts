/**
 * The checks the key operations share (docs/management.md "Operations"): the key of a project an
 * actor may change, and what a key's inputs may be (its expiry, its own limit), each refusal a
 * ManagementError naming its field.
 */
import { AccountError, parseDuration, type ApiKeyRecord } from '@svc/accounts';
import { planLimits, type KeyLevel, type Role } from '@svc/policy';
import { CREATABLE, type ManagementContext } from './context.ts';
import { ManagementError, type Actor } from './types.ts';

/** The checks of the key operations, on the shared context. */
export function keyChecks(ctx: ManagementContext) {
  const { accounts, now, projectFor } = ctx;

  async function keyOfProject(slug: string, id: string): Promise<ApiKeyRecord> {
    const key = await accounts.keys.getById(id);
    if (!key || key.project !== slug || key.kind !== 'project_key') throw new ManagementError(404, 'There is no such key in this project.');
    return key;
  }

  /**
   * A key the actor may change that can still work: revoked and expired keys are a 409 (nothing
   * about them matters any more).
   */
  async function changeableKey(actor: Actor, slug: string, id: string) {
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

  return { keyOfProject, changeableKey, invalid, mayChangeKey, expiryOf, keyLimitOf };
}

/** The checks of the key operations. */
export type KeyChecks = ReturnType<typeof keyChecks>;

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1) + (text.endsWith('.') ? '' : '.');
