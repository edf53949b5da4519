/**
 * The leased limiter's price, printed by `pnpm bench` beside the throughput (docs/operations.md
 * "Leased or exact limits"): `replicas` limiters in this process, each on its own Redis connection,
 * share one workspace on FREE ×10 (300 requests a minute); charges arrive at random replicas in
 * random bursts over `minutes` minutes of a simulated clock, more than the limit each minute, and
 * one replica in ten bursts is killed mid-block. Reports the most any minute admitted (never above
 * the limit) and the false denials: requests refused in a minute that admitted less than its limit.
 */
import { connectRedis } from '@svc/accounts';
import type { Charge } from '../services/mcp-gateway/src/ratelimit/rate-limiter.ts';
import { createLeasedLimiter } from '../services/mcp-gateway/src/ratelimit/leased-limiter.ts';

export interface LeasedPrice {
  replicas: number;
  limit: number;
  requests: number;
  mostAdmitted: number;
  falseDenials: number;
  kills: number;
}

export async function leasedPrice(redisUrl: string, replicas = 4, minutes = 20): Promise<LeasedPrice> {
  let t = Date.UTC(2031, 0, 1);
  const limit = 300;
  const start = () => {
    const conn = connectRedis(redisUrl, { name: 'bench-leased' });
    return { conn, check: createLeasedLimiter(conn, { profile: 'current', scale: 10, now: () => t, tickMs: 0 }) };
  };
  const live = Array.from({ length: replicas }, start);
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const charge: Charge = { workspace: `bench-leased-${t}`, plan: 'FREE', countsAsQuery: false, credential: 'key:bench' };
  let requests = 0;
  let falseDenials = 0;
  let mostAdmitted = 0;
  let kills = 0;
  for (let minute = 0; minute < minutes; minute++) {
    let admitted = 0;
    let refused = 0;
    // About 1.5 times the limit a minute, in bursts a few seconds apart.
    for (let s = 0; s < 20; s++) {
      const burst = Array.from({ length: 1 + Math.floor(random() * 44) }, () => live[Math.floor(random() * replicas)]!.check(charge));
      for (const d of await Promise.all(burst)) {
        if (d.outcome === 'allowed') admitted++;
        else refused++;
      }
      if (random() < 0.1) {
        const i = Math.floor(random() * replicas);
        live[i]!.check.abandon();
        live[i]!.conn.disconnect();
        live[i] = start();
        kills++;
      }
      t += 3_000;
    }
    requests += admitted + refused;
    mostAdmitted = Math.max(mostAdmitted, admitted);
    falseDenials += Math.min(refused, limit - admitted);
  }
  for (const r of live) {
    r.check.abandon();
    r.conn.disconnect();
  }
  return { replicas, limit, requests, mostAdmitted, falseDenials, kills };
}
