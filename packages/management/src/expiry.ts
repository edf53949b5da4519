/**
 * The key-expiry sweep (docs/management.md "Expiry"): project keys that end within a week are
 * announced once to their project's admins by email and recorded once as `key.expiring` in their
 * workspace's audit log; keys that have ended are recorded once as `key.expired` there. Keys wait in one sorted set by expiry time, so a
 * sweep reads only what is due. Each key is marked with HSETNX before anything is sent or written,
 * so sweeps running on several replicas at once announce and record each key once.
 */
import { K, type Accounts, type Redis } from '@svc/accounts';
import type { Notices } from './notices.ts';

/** How long before its end a key is announced. */
const EXPIRY_WARNING_MS = 7 * 86_400_000;

export interface ExpirySweepDeps {
  accounts: Accounts;
  redis: Redis;
  notices: Pick<Notices, 'keyExpiring'>;
  now: () => number;
}

/** One sweep: the counts of keys announced and recorded as expired. */
export async function sweepKeyExpiries(deps: ExpirySweepDeps): Promise<{ warned: number; expired: number }> {
  const now = deps.now();
  let [warned, expired] = [0, 0];
  for (const id of await deps.redis.zrangebyscore(K.keyExpiries(), '-inf', now + EXPIRY_WARNING_MS)) {
    const key = await deps.accounts.keys.getById(id);
    if (!key || key.revoked || key.expiresAt === null) {
      await deps.redis.zrem(K.keyExpiries(), id);
      continue;
    }
    if (key.expiresAt <= now) {
      if (await deps.accounts.keys.markExpiry(id, 'noted')) {
        await deps.accounts.audit.record({
          workspace: key.workspace,
          actor: 'svc',
          action: 'key.expired',
          target: `key:${key.id} (${key.prefix}, "${key.name}")`,
          source: 'expiry sweep',
          requestId: '',
          detail: { project: key.project, expired_at: new Date(key.expiresAt).toISOString() },
        });
        expired++;
      }
      await deps.redis.zrem(K.keyExpiries(), id);
    } else if (await deps.accounts.keys.markExpiry(id, 'warned')) {
      // Only the sweep that won the mark writes it: one `key.expiring` entry per key and warning.
      await deps.accounts.audit.record({
        workspace: key.workspace,
        actor: 'svc',
        action: 'key.expiring',
        target: `key:${key.id} (${key.prefix}, "${key.name}")`,
        source: 'expiry sweep',
        requestId: '',
        detail: { project: key.project, expires_at: new Date(key.expiresAt).toISOString() },
      });
      await deps.notices.keyExpiring(key);
      warned++;
    }
  }
  return { warned, expired };
}
