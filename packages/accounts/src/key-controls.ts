/**
 * A key's controls' bounds (docs/contract.md "Credentials"): its note's length, and its optional
 * IP allow-list: IPv4 and IPv6 addresses and CIDR blocks (RFC 4632, RFC 4291 §2.3), matched with node:net's BlockList, which
 * also matches an IPv4-mapped IPv6 address (RFC 4291 §2.5.5.2) against IPv4 blocks.
 */
import { BlockList, isIP } from 'node:net';
import { AccountError } from './errors.ts';

/** The most entries one key's allow-list holds: 32. */
export const MAX_ALLOWED_IPS = 32;
/** The longest note a key may carry, in characters: 500. */
export const MAX_KEY_NOTE = 500;

/**
 * The allow-list as stored: each entry an address or `address/prefix`, in canonical CIDR form (a
 * bare address becomes /32 or /128), duplicates dropped. Throws AccountError('invalid') naming the
 * first entry that is not one, or when there are more than MAX_ALLOWED_IPS.
 */
export function normalizeAllowedIps(entries: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    const cidr = canonicalCidr(entry);
    if (!cidr)
      throw new AccountError(
        'invalid',
        `"${entry.slice(0, 60)}" is not an IPv4 or IPv6 address or CIDR block (such as 203.0.113.0/24 or 2001:db8::/32)`,
      );
    if (!out.includes(cidr)) out.push(cidr);
  }
  if (out.length > MAX_ALLOWED_IPS)
    throw new AccountError('invalid', `a key's IP allow-list holds at most ${MAX_ALLOWED_IPS} entries (got ${out.length})`);
  return out;
}

function canonicalCidr(entry: string): string | null {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return null;
  const max = family === 4 ? 32 : 128;
  if (prefix === undefined) return `${address.toLowerCase()}/${max}`;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return null;
  return `${address.toLowerCase()}/${Number(prefix)}`;
}

/** The stored allow-list as a matcher (entries already normalized); null for none. */
export function compileAllowedIps(cidrs: readonly string[]): BlockList | null {
  if (cidrs.length === 0) return null;
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = '', prefix = ''] = cidr.split('/');
    list.addSubnet(address, Number(prefix), isIP(address) === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

/** Whether `address` (as TRUST_PROXY resolved it) is on the list; an unknown address never is. */
export function allowedBy(list: BlockList, address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return list.check(address, family === 6 ? 'ipv6' : 'ipv4');
}
