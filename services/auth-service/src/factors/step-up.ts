/**
 * Step-up (docs/auth-service.md "Step-up"): the management operations whose declaration says
 * `stepUp: 'always'` (docs/security.md "Step-up" lists them), and the factor pages' own changes,
 * need a second factor used on this browser session within STEP_UP_MINUTES. The time is kept on
 * the session (field `factorAt`), set when a factor is used; the dashboard hands it to the
 * management layer as its actor's `factorAt`, and the layer applies the rule.
 */
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { Accounts, Redis, User } from '@svc/accounts';
import { sessionCookieOf } from '../http/web-session.ts';
import { OK } from '../store/redis-keys.ts';
import { STEP_UP_MINUTES } from '@svc/management/contract';

/** How recent a second factor must be for the actions that need a step-up (declared with the operations' rules). */
export { STEP_UP_MINUTES };
/** The field of the web session holding when its second factor was last used (ms). */
export const FACTOR_AT_FIELD = 'factorAt';

const sessionKey = (req: Request): string | null => {
  const id = sessionCookieOf(req);
  return id ? OK.webSession(createHash('sha256').update(id).digest('hex')) : null;
};

/** Records on this request's session that a second factor was used now. */
export async function markFactorUsed(redis: Redis, req: Request, now: number = Date.now()): Promise<void> {
  const key = sessionKey(req);
  if (key && (await redis.exists(key))) await redis.hset(key, FACTOR_AT_FIELD, String(now));
}

/** When this request's session last used a second factor (ms), if it did: a dashboard actor's `factorAt`. */
export async function factorAtOf(redis: Redis, req: Request): Promise<number | undefined> {
  const key = sessionKey(req);
  const at = key ? Number(await redis.hget(key, FACTOR_AT_FIELD)) : 0;
  return at > 0 ? at : undefined;
}

/** True when this request's session used a second factor within STEP_UP_MINUTES. */
export async function hasRecentFactor(redis: Redis, req: Request, now: number = Date.now()): Promise<boolean> {
  const at = await factorAtOf(redis, req);
  return at !== undefined && now - at <= STEP_UP_MINUTES * 60_000;
}

/** True when the person must use a second factor (FactorStore.requiredFor). */
export const mustUseFactor = (accounts: Accounts, user: User): Promise<boolean> => accounts.factors.requiredFor(user);

/** Where a browser steps up, coming back to `returnTo` after. */
export const stepUpUrl = (returnTo: string) => `/factors/step-up?return=${encodeURIComponent(returnTo)}`;
