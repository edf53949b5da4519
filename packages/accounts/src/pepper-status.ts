/**
 * What `svc-admin pepper status` reports (docs/operations.md "Rotating the key pepper"): which live
 * keys the current pepper alone can find, and which still need the one being retired. Every key
 * record is read in pages (SCAN), never in one command.
 */
import { pepperVersion } from '@svc/credentials';
import type { PepperStatus } from './api-key-records.ts';
import { num, type StoreContext } from './context.ts';
import { K } from './keys.ts';
import { scanKeys } from './scan.ts';

export async function pepperStatus(ctx: StoreContext): Promise<PepperStatus> {
  const current = pepperVersion(ctx.pepper);
  const status: PepperStatus = {
    current,
    previous: ctx.previousPepper ? pepperVersion(ctx.previousPepper) : null,
    live: 0,
    underCurrent: 0,
    waiting: [],
  };
  for await (const batch of scanKeys(ctx.redis, `${K.apiKey('')}*`)) {
    const recs = await Promise.all(batch.map((k) => ctx.redis.hmget(k, 'id', 'revoked', 'expiresAt', 'pepper', 'lastUsedAt')));
    for (const [id, revoked, expiresAt, pepper, lastUsedAt] of recs) {
      if (!id || revoked === '1' || (expiresAt && Number(expiresAt) <= ctx.now())) continue;
      status.live++;
      if (pepper === current) status.underCurrent++;
      else status.waiting.push({ id, lastUsedAt: num(lastUsedAt ?? '') });
    }
  }
  return status;
}
