/**
 * The webhook delivery worker in the auth-service process (docs/webhooks.md "Delivery"), posting
 * through the same guarded client as Client ID Metadata Documents (oauth/cimd-fetch.ts): every
 * address the host resolves to is checked, the one checked is the one connected to, time and size
 * are bounded, redirects are not followed. Special-use addresses are refused unless they fall in
 * WEBHOOK_ALLOWED_PRIVATE.
 */
import { BlockList } from 'node:net';
import type { Redis } from '@svc/accounts';
import type { Config } from '@svc/config';
import { createWebhookWorker, WEBHOOK_MAX_RESPONSE_BYTES, WebhookStore, type WebhookSend, type WebhookWorker } from '@svc/webhooks';
import { createCimdFetch, isSpecialUseAddress, type CimdFetchOptions } from './oauth/cimd-fetch.ts';

/** The guarded POST; `resolve` is for tests (names that resolve to hostile addresses). */
export function webhookSend(allowedPrivate: Config['webhookAllowedPrivate'], resolve?: CimdFetchOptions['resolve']): WebhookSend {
  const allowed = new BlockList();
  for (const b of allowedPrivate) allowed.addSubnet(b.address, b.prefix, b.family);
  const fetch = createCimdFetch({
    refuse: (address) => isSpecialUseAddress(address) && !allowed.check(address, address.includes(':') ? 'ipv6' : 'ipv4'),
    maxBytes: WEBHOOK_MAX_RESPONSE_BYTES,
    anyStatus: true,
    ...(resolve ? { resolve } : {}),
  });
  return async (url, init) => {
    const res = await fetch(url, { method: 'POST', headers: init.headers, body: init.body });
    return { status: res.status };
  };
}

export function startWebhookWorker(opts: { redis: Redis; config: Config; onError: (err: unknown) => void }): WebhookWorker {
  const store = new WebhookStore(opts.redis, { pepper: opts.config.keyPepper, previousPepper: opts.config.previousKeyPepper });
  const worker = createWebhookWorker({
    redis: opts.redis,
    store,
    send: webhookSend(opts.config.webhookAllowedPrivate),
    onError: opts.onError,
  });
  worker.start();
  return worker;
}
