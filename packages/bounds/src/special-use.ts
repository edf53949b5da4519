/**
 * The addresses svc never connects to on a tenant's or a client's behalf: the IANA special-purpose
 * address registries (RFC 6890 and its updates) and the IPv6 forms that carry an IPv4 address
 * (RFC 4291 §2.5.5, RFC 6052, RFC 3056). Used by the guarded client before it connects
 * (guarded-fetch.ts) and by whatever saves a URL only the guarded client will fetch (a JWKS URL).
 */
import { BlockList, isIP } from 'node:net';

// Two lists: a BlockList matches an IPv4 address against IPv6 rules as its IPv4-mapped form, so
// with `::ffff:0:0/96` in the same list every IPv4 address would match.
const SPECIAL_USE_V4 = new BlockList();
const SPECIAL_USE_V6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata endpoints)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  SPECIAL_USE_V4.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 96], // unspecified, loopback, IPv4-compatible (RFC 4291 §2.5.5.1)
  ['::ffff:0:0', 96], // IPv4-mapped (RFC 4291 §2.5.5.2): an answer never needs one, whatever IPv4 it carries
  ['::ffff:0:0:0', 96], // IPv4-translated (RFC 2765 §2.1)
  ['64:ff9b::', 96], // NAT64: embeds an IPv4 address (RFC 6052)
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215)
  ['100::', 64], // discard-only (RFC 6666)
  ['100:0:0:1::', 64], // dummy prefix (RFC 9780)
  ['2001::', 23], // IETF protocol assignments (Teredo among them)
  ['2001:db8::', 32], // documentation (RFC 3849)
  ['2002::', 16], // 6to4: embeds an IPv4 address (RFC 3056)
  ['3fff::', 20], // documentation (RFC 9637)
  ['5f00::', 16], // segment routing SIDs (RFC 9602)
  ['fc00::', 7], // unique local (private, RFC 4193)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, RFC 3879)
  ['ff00::', 8], // multicast
] as const) {
  SPECIAL_USE_V6.addSubnet(net, prefix, 'ipv6');
}

/**
 * True for an address svc must never connect to on a client's behalf; anything that is not an IP
 * address counts as one. IPv4-mapped IPv6 (`::ffff:127.0.0.1`, `::ffff:7f00:1`) is refused whatever
 * IPv4 address it carries.
 */
export function isSpecialUseAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return family === 4 ? SPECIAL_USE_V4.check(address, 'ipv4') : SPECIAL_USE_V6.check(address, 'ipv6');
}

/**
 * True when a URL's host is one the guarded client will always refuse, seen without a lookup: an
 * IP literal of a special-use address (the URL parser has already normalised `2130706433`,
 * `0x7f.1`, `[::ffff:7f00:1]`, ...), or a name reserved for loopback (RFC 6761 §6.3: `localhost`
 * and every name under it). Other names are judged when fetched: a save makes no lookup.
 */
export function isSpecialUseHost(url: URL): boolean {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname.replace(/\.$/, '').toLowerCase();
  if (isIP(host) !== 0) return isSpecialUseAddress(host);
  return host === 'localhost' || host.endsWith('.localhost');
}
