/**
 * The webhook POST through the guarded outgoing client (@svc/bounds guarded-fetch.ts, the one
 * Client ID Metadata Documents are fetched with; docs/webhooks.md "Outbound protections"): every
 * address the host resolves to is checked, the one checked is the one connected to, time and size
 * are bounded, redirects are not followed. Special-use addresses are refused unless they fall in
 * WEBHOOK_ALLOWED_PRIVATE.
 */
import { BlockList } from 'node:net';
import { CimdFetchRefused, createCimdFetch, isSpecialUseAddress, type CimdFetchOptions } from '@svc/bounds/guarded-fetch.ts';
import { WEBHOOK_MAX_RESPONSE_BYTES, webhookPortAllowed } from './bounds.ts';
import type { WebhookSend } from './worker.ts';

/** A CIDR block an operator allows (config's webhookAllowedPrivate). */
export interface AllowedBlock {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** The guarded POST; `resolve` is for tests (names that resolve to hostile addresses). */
export function webhookSend(allowedPrivate: readonly AllowedBlock[], resolve?: CimdFetchOptions['resolve']): WebhookSend {
  const allowed = new BlockList();
  for (const b of allowedPrivate) allowed.addSubnet(b.address, b.prefix, b.family);
  const fetch = createCimdFetch({
    refuse: (address) => isSpecialUseAddress(address) && !allowed.check(address, address.includes(':') ? 'ipv6' : 'ipv4'),
    maxBytes: WEBHOOK_MAX_RESPONSE_BYTES,
    anyStatus: true,
    ...(resolve ? { resolve } : {}),
  });
  return async (url, init) => {
    // Refused at create and update too; checked again for an endpoint kept from before the rule.
    if (!webhookPortAllowed(new URL(url))) throw new CimdFetchRefused('refused: the port is not one webhooks may use');
    const res = await fetch(url, { method: 'POST', headers: init.headers, body: init.body });
    return { status: res.status };
  };
}
