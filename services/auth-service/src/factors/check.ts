/**
 * The check of a typed second factor (docs/auth-service.md "Second factor"): a TOTP code, used
 * once (its time step recorded atomically, so a replay within its window is refused), or a
 * recovery code, used once. Wrong codes are throttled per account (the `secondFactorPerAccount`
 * bucket of @svc/limits); a right one gives its attempt back.
 */
import type { Accounts } from '@svc/accounts';
import type { Throttle, ThrottleRule } from '../http/throttle.ts';
import { totpStep } from './totp.ts';

export type FactorCheck = { ok: true; recovery: boolean } | { ok: false; waitSeconds: number };

const SCOPE = 'second-factor';

export async function checkTypedFactor(
  deps: { accounts: Accounts; throttle: Throttle; rule: ThrottleRule },
  userId: string,
  form: Record<string, unknown>,
): Promise<FactorCheck> {
  const wait = await deps.throttle.attempt(SCOPE, userId, deps.rule);
  if (wait > 0) return { ok: false, waitSeconds: wait };
  const recovery = typeof form['recovery'] === 'string' ? form['recovery'].trim() : '';
  const code = typeof form['code'] === 'string' ? form['code'] : '';
  const ok = recovery ? await deps.accounts.factors.useRecoveryCode(userId, recovery) : await totpUsed(deps.accounts, userId, code);
  if (!ok) return { ok: false, waitSeconds: 0 };
  await deps.throttle.refund(SCOPE, userId);
  return { ok: true, recovery: Boolean(recovery) };
}

/** True when `code` is right for the person's TOTP secret and its time step was not used yet. */
async function totpUsed(accounts: Accounts, userId: string, code: string): Promise<boolean> {
  const secret = await accounts.factors.totpSecret(userId);
  const step = secret ? await totpStep(secret, code) : null;
  return step !== null && (await accounts.factors.useTotpStep(userId, step));
}
