/**
 * HTTP Strict Transport Security (RFC 6797) for a service whose public URL is https: every answer
 * tells the browser to use only https for this host for a year (docs/operations.md "Proxies").
 * Not `includeSubDomains`: sibling hosts of the domain are not ours to decide for.
 */
export const HSTS_MAX_AGE_SECONDS = 31_536_000;

/** The Strict-Transport-Security value for a service served at `publicUrl`, or null over http. */
export function strictTransportSecurity(publicUrl: string): string | null {
  return publicUrl.startsWith('https:') ? `max-age=${HSTS_MAX_AGE_SECONDS}` : null;
}
