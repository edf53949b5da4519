/**
 * The webhook POST through the guarded outgoing client (@svc/bounds guarded-fetch.ts, the one
 * Client ID Metadata Documents are fetched with; docs/webhooks.md "Outbound protections"): every
 * address the host resolves to is checked, the one checked is the one connected to, time and size
 * are bounded (a longer answer is cut off, not refused), redirects are not followed. Special-use
 * addresses are refused unless they fall in WEBHOOK_ALLOWED_PRIVATE.
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

/**
 * The guarded POST; `resolve` is for tests (names that resolve to hostile addresses). A failure
 * reaches the tenant's delivery log only as a fixed text (tenantError); its full detail, which may
 * name internal addresses, goes to `operatorLog` alone.
 */
export function webhookSend(
  allowedPrivate: readonly AllowedBlock[],
  resolve?: CimdFetchOptions['resolve'],
  operatorLog?: (err: unknown) => void,
): WebhookSend {
  const allowed = new BlockList();
  for (const b of allowedPrivate) allowed.addSubnet(b.address, b.prefix, b.family);
  const fetch = createCimdFetch({
    refuse: (address) => isSpecialUseAddress(address) && !allowed.check(address, address.includes(':') ? 'ipv6' : 'ipv4'),
    maxBytes: WEBHOOK_MAX_RESPONSE_BYTES,
    anyStatus: true,
    // Only the status counts (docs/webhooks.md "Verdicts"): a long answer is cut off, never a failure.
    cutAtMaxBytes: true,
    // Deliveries have a lane of their own, so sign-in never waits behind them (docs/security.md
    // "Shared pools, per-tenant shares"); each workspace uses its own share of it.
    lane: 'deliveries',
    ...(resolve ? { resolve } : {}),
  });
  return async (url, init) => {
    // Refused at create and update too; checked again for an endpoint kept from before the rule.
    if (!webhookPortAllowed(new URL(url))) throw new CimdFetchRefused('refused: the port is not one webhooks may use');
    let failure: unknown;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: init.headers,
        body: init.body,
        ...(init.tenant ? { tenant: init.tenant } : {}),
      });
      return { status: res.status };
    } catch (err) {
      failure = err;
    }
    // Not attached as a cause: the tenant's error must not carry the detail along.
    operatorLog?.(failure);
    throw new Error(tenantError(failure));
  };
}

/**
 * What the owner sees of a failed POST: a refusal's tenant text, a socket error's code, or a
 * fixed text. Never the underlying message: a resolver's or socket's may carry an internal address.
 * A name that does not resolve and one that resolves to a non-public address read alike, so the
 * log cannot be used to learn which internal names exist (docs/webhooks.md "Outbound protections").
 */
function tenantError(err: unknown): string {
  if (err instanceof CimdFetchRefused) return err.tenantMessage ?? err.message;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code)) return `the receiver could not be reached (${code})`;
  return 'the delivery failed';
}

/**
 * `send`, telling `observe` each POST's status (null when no answer came: refused, unreachable,
 * timed out) and the seconds it took: the services' svc_outbound_duration_seconds{kind="webhook"}
 * (docs/operations.md "Reading the metrics").
 */
export function observedSend(send: WebhookSend, observe: (status: number | null, seconds: number) => void): WebhookSend {
  return async (url, init) => {
    const start = performance.now();
    let status: number | null = null;
    try {
      const answer = await send(url, init);
      status = answer.status;
      return answer;
    } finally {
      observe(status, (performance.now() - start) / 1_000);
    }
  };
}
