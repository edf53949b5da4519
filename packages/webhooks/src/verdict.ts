/**
 * What a receiver's answer means (docs/webhooks.md "Verdicts"; Standard Webhooks, "Delivery success
 * and failure"): any 2xx is a delivery, whatever its body; 410 Gone says the receiver wants no more
 * (RFC 9110 §15.5.11: the resource is gone, likely for good), so the endpoint is disabled at once;
 * any other status, and no answer at all, is retried after the backoff.
 */
export type Verdict = 'delivered' | 'gone' | 'retry';

/** The verdict on one attempt; `status` is null when no answer came (refused, unreachable, timed out). */
export function verdictOf(status: number | null): Verdict {
  if (status !== null && status >= 200 && status <= 299) return 'delivered';
  if (status === 410) return 'gone';
  return 'retry';
}
