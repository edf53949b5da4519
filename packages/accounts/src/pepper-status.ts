/**
 * A key pepper's rotation (docs/operations.md "Rotating the key pepper"): keys found under the
 * pepper being retired are re-hashed on use, and `svc-admin pepper status` reports which live keys
 * the current pepper alone can find, and which still need the one being retired. Every key record
 * is read in pages (SCAN), never in one command.
 */
import { pepperVersion } from '@svc/credentials';
import type { PepperStatus } from './api-key-records.ts';
import type { ApiKeyRecord } from './types.ts';
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

/**
 * Makes `rec` findable under `alias` (its hash under the current pepper), for as long as it lives.
 * A lost alias is made again by the next lookup while the previous pepper is set: no replicas'
 * confirmation on the request path.
 */
export async function rehashKey(ctx: StoreContext, rec: ApiKeyRecord, alias: string): Promise<void> {
  const r = ctx.unconfirmed;
  const ttl = await r.pttl(K.apiKey(rec.hash));
  await r.hset(K.apiKey(alias), 'alias', rec.hash);
  if (ttl > 0) await r.pexpire(K.apiKey(alias), ttl);
  await r.hset(K.apiKey(rec.hash), 'pepper', pepperVersion(ctx.pepper));
}
