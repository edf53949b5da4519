/**
 * Proof that a workspace controls an email domain before its SSO takes effect (docs/auth-service.md
 * "Single sign-on", "Why DNS"): a TXT record `_svc-sso.<domain>` holding `svc-sso=<token>`, read
 * through an injectable resolver (node:dns/promises by default).
 */
import { resolveTxt as systemResolveTxt } from 'node:dns/promises';
import { randomBytes } from 'node:crypto';

/** A TXT lookup: the records of a name, each as the chunks DNS returned (RFC 1035 §3.3.14). */
export type ResolveTxt = (name: string) => Promise<string[][]>;

export const defaultResolveTxt: ResolveTxt = systemResolveTxt;

/** The name the record is published at. */
export const proofName = (domain: string) => `_svc-sso.${domain}`;
/** The record's value for a claim's token. */
export const proofValue = (token: string) => `svc-sso=${token}`;

export const newProofToken = () => randomBytes(18).toString('base64url');

/** A DNS name of at least two labels, each 1-63 letters, digits or inner hyphens, ending in a letter label (RFC 1123 §2.1). */
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

/** The domain lower-cased, or null when it is not a DNS name. */
export function normalDomain(input: string): string | null {
  const d = input.trim().toLowerCase().replace(/\.$/, '');
  return DOMAIN.test(d) ? d : null;
}

/** True when a TXT record at the proof name holds the token; a failed lookup (NXDOMAIN, timeout) is false. */
export async function domainProven(resolve: ResolveTxt, domain: string, token: string): Promise<boolean> {
  try {
    const records = await resolve(proofName(domain));
    return records.some((chunks) => chunks.join('') === proofValue(token));
  } catch {
    return false;
  }
}
