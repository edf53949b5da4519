/**
 * The worker as a process part (docs/webhooks.md "Delivery"): the auth-service starts it when
 * WEBHOOKS=on, `svc-admin webhooks run` for operators who want it apart. Either way one replica
 * delivers at a time (the lease).
 */
import { createAccounts, type Redis } from '@svc/accounts';
import { observedSend, webhookSend, type AllowedBlock } from './send.ts';
import { WebhookStore } from './store.ts';
import { createWebhookWorker, type WebhookWorker } from './worker.ts';

export interface WorkerConfig {
  keyPepper: string;
  previousKeyPepper: string | null;
  /** The audit entries the worker writes (`webhook.disabled`) are confirmed as the services' are. */
  redisWaitReplicas: number;
  webhookAllowedPrivate: readonly AllowedBlock[];
}

/** What startWebhookWorker takes. */
export interface WorkerStart {
  redis: Redis;
  config: WorkerConfig;
  onError: (err: unknown) => void;
  /** Each POST's status (null: no answer) and seconds, for the service's metrics (observedSend). */
  observe?: (status: number | null, seconds: number) => void;
}

export function startWebhookWorker(opts: WorkerStart): WebhookWorker {
  const peppers = { pepper: opts.config.keyPepper, previousPepper: opts.config.previousKeyPepper };
  const store = new WebhookStore(opts.redis, peppers);
  const { audit } = createAccounts(opts.redis, { ...peppers, waitReplicas: opts.config.redisWaitReplicas });
  const send = webhookSend(opts.config.webhookAllowedPrivate, undefined, opts.onError);
  const worker = createWebhookWorker({
    redis: opts.redis,
    store,
    audit,
    send: opts.observe ? observedSend(send, opts.observe) : send,
    onError: opts.onError,
  });
  worker.start();
  return worker;
}
