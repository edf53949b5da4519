/**
 * `svc-admin webhooks run` (docs/webhooks.md "Delivery"): the delivery worker in a process of its
 * own, for operators who run the auth-service with WEBHOOKS=off. Runs until SIGTERM or SIGINT,
 * then finishes the deliveries in flight and hands the lease back.
 */
import { connectRedis, waitReady } from '@svc/accounts';
import type { Config } from '@svc/config';
import { startWebhookWorker } from '@svc/webhooks';

export async function runWebhooks(config: Config): Promise<number> {
  const redis = connectRedis(config.redisUrl, { cluster: config.redisCluster, sentinel: config.redisSentinel, name: 'svc-admin-webhooks' });
  await waitReady(redis, 15_000);
  const worker = startWebhookWorker({
    redis,
    config,
    onError: (err) =>
      process.stderr.write(`svc-admin webhooks: a delivery turn failed: ${err instanceof Error ? err.message : String(err)}\n`),
  });
  process.stderr.write('svc-admin webhooks: delivering (one replica at a time holds the lease); SIGTERM stops\n');
  await new Promise<void>((ok) => {
    process.once('SIGTERM', ok);
    process.once('SIGINT', ok);
  });
  await worker.stop();
  redis.disconnect();
  process.stderr.write('svc-admin webhooks: stopped\n');
  return 0;
}
