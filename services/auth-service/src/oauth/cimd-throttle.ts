/**
 * Which Client ID Metadata Documents may be fetched, and how often (docs/auth-service.md "Client
 * ID Metadata Documents"): oidc-provider's `allowFetch` hook, called only for a document it has not
 * cached. The host must be on CIMD_ALLOWED_HOSTS; then each fetch counts against the source
 * address (one sender cannot make svc fetch without end) and against the client_id's host (many
 * senders together cannot make svc hammer one host). Over a limit: 429 `temporarily_unavailable`
 * with Retry-After, before any connection is opened.
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import { errors } from 'oidc-provider';
import { oauthAnswer } from '@svc/errors';
import { BUCKETS } from '@svc/limits';
import type { Throttle, ThrottleRule } from '../http/throttle.ts';

/** Fetches per source address, and per client_id host (`@svc/limits` BUCKETS). */
export const CIMD_FETCH_LIMITS: { perSource: ThrottleRule; perHost: ThrottleRule } = {
  perSource: BUCKETS.cimdFetchPerSource,
  perHost: BUCKETS.cimdFetchPerHost,
};

class FetchesThrottled extends errors.OIDCProviderError {
  constructor(description: string) {
    const { status, error } = oauthAnswer('too_many');
    super(status, error);
    this.error_description = description;
  }
}

/** Whether CIMD_ALLOWED_HOSTS admits a host (`*` admits every host); the host in lower case. */
export function cimdHostAllowed(allowedHosts: string[]): (host: string) => boolean {
  const hosts = new Set(allowedHosts);
  return (host) => hosts.has('*') || hosts.has(host);
}

export function cimdAllowFetch(deps: { allowedHosts: string[]; throttle: Throttle }) {
  const allowed = cimdHostAllowed(deps.allowedHosts);
  return async function allowFetch(ctx: KoaContextWithOIDC | undefined, clientId: string): Promise<boolean> {
    const host = new URL(clientId).host.toLowerCase();
    if (!allowed(host)) return false;
    // oidc-provider's authorize error handler looks a client it could not load up again: one
    // fetch per document and request, so a failed one is not made, or counted, twice.
    const tried = ((ctx?.state as { cimdTried?: Set<string> } | undefined) ?? {}).cimdTried ?? new Set<string>();
    if (tried.has(clientId)) return false;
    if (ctx) (ctx.state as { cimdTried?: Set<string> }).cimdTried = tried.add(clientId);
    const checks: [string, string, ThrottleRule, string][] = [
      ['cimd-ip', ctx?.ip ?? 'unknown', CIMD_FETCH_LIMITS.perSource, 'from this address'],
      ['cimd-host', host, CIMD_FETCH_LIMITS.perHost, `of ${host}`],
    ];
    for (const [scope, subject, rule, whose] of checks) {
      // Checked and counted in one step (throttle.ts), so concurrent requests cannot pass it.
      const wait = await deps.throttle.attempt(scope, subject, rule);
      if (wait > 0) {
        ctx?.set('Retry-After', String(wait));
        throw new FetchesThrottled(`too many client metadata documents fetched ${whose}; retry in ${wait} s`);
      }
    }
    return true;
  };
}
