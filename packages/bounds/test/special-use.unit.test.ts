/**
 * The outbound guard's refused ranges (packages/bounds/src/special-use.ts), generated over address
 * forms: every address of every IANA special-purpose range (RFC 6890 and its updates, RFC 9637's
 * 3fff::/20, RFC 9602's 5f00::/16, RFC 9780's 100:0:0:1::/64) in every spelling, and every IPv4 address carried in IPv6
 * (IPv4-mapped `::ffff:0:0/96` and -compatible, RFC 4291 §2.5.5; IPv4-translated; NAT64; 6to4) is
 * refused, as an address and as a URL host, before any lookup or connection; addresses outside the
 * ranges are not. The ranges below are written from the RFCs, apart from the code's list.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { CimdFetchRefused, createCimdFetch } from '../src/guarded-fetch.ts';
import { isSpecialUseAddress, isSpecialUseHost } from '../src/special-use.ts';

const V4_RANGES: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
const V6_RANGES: [string, number][] = [
  ['::', 96],
  ['::ffff:0:0', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['100:0:0:1::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
  ['5f00::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

const v4Big = (a: string) => a.split('.').reduce((n, o) => (n << 8n) | BigInt(o), 0n);
const v4Text = (n: bigint) => [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 255n)).join('.');
function v6Big(a: string): bigint {
  const [head, tail] = a.includes('::') ? a.split('::') : [a, null];
  const groups = (s: string | null | undefined) => (s ? s.split(':') : []);
  const left = groups(head);
  const right = tail === null ? [] : groups(tail);
  const fill = tail === null ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].reduce((n, g) => (n << 16n) | BigInt(`0x${g}`), 0n);
}
const inside = (n: bigint, [net, len]: [string, number], bits: number, parse: (a: string) => bigint) =>
  n >> BigInt(bits - len) === parse(net) >> BigInt(bits - len);
const isRefusedV4 = (n: bigint) => V4_RANGES.some((r) => inside(n, r, 32, v4Big));
const isRefusedV6 = (n: bigint) => V6_RANGES.some((r) => inside(n, r, 128, v6Big));

/** The eight 16-bit groups of an address. */
const groupsOf = (n: bigint) => Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(112 - 16 * i)) & 0xffffn));
/** An IPv6 address in one of the spellings a name server, a URL or a person may use. */
function v6Text(n: bigint, style: number): string {
  const g = groupsOf(n);
  switch (style % 4) {
    case 0: // expanded, no leading zeros
      return g.map((x) => x.toString(16)).join(':');
    case 1: // padded, upper case
      return g.map((x) => x.toString(16).padStart(4, '0').toUpperCase()).join(':');
    case 2: {
      // the longest run of zero groups compressed (RFC 5952 §4.2)
      let [best, bestLen] = [-1, 0];
      for (let i = 0; i < 8; i++) {
        let j = i;
        while (j < 8 && g[j] === 0) j++;
        if (j - i > bestLen && j - i > 1) [best, bestLen] = [i, j - i];
      }
      if (best < 0) return g.map((x) => x.toString(16)).join(':');
      const part = (xs: number[]) => xs.map((x) => x.toString(16)).join(':');
      return `${part(g.slice(0, best))}::${part(g.slice(best + bestLen))}`;
    }
    default: // the last 32 bits as a dotted quad
      return `${g
        .slice(0, 6)
        .map((x) => x.toString(16))
        .join(':')}:${v4Text(n & 0xffffffffn)}`;
  }
}

const inRange = (ranges: [string, number][], bits: number, parse: (a: string) => bigint) =>
  fc
    .tuple(fc.constantFrom(...ranges), fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n }))
    .map(([[net, len], host]) => (parse(net) & ~((1n << BigInt(bits - len)) - 1n)) | (host & ((1n << BigInt(bits - len)) - 1n)));
const anyV4 = fc.bigInt({ min: 0n, max: 0xffffffffn });
const style = fc.nat({ max: 3 });

/** Every spelling of an IPv4 address as a URL host the WHATWG URL parser reads as that address. */
function v4UrlHosts(n: bigint): string[] {
  const [a, b, c, d] = [24n, 16n, 8n, 0n].map((s) => (n >> s) & 255n) as [bigint, bigint, bigint, bigint];
  return [
    v4Text(n),
    `${v4Text(n)}.`,
    String(n),
    `0x${n.toString(16)}`,
    [a, b, c, d].map((o) => `0${o.toString(8)}`).join('.'),
    `0x${a.toString(16)}.${b}.${c}.${d}`,
    `${a}.${b}.${(c << 8n) | d}`,
    `${a}.${(b << 16n) | (c << 8n) | d}`,
  ];
}

/** The guarded fetch with a resolver that fails the test if asked: a literal is judged as it is. */
const literalOnly = createCimdFetch({
  resolve: () => assert.fail('an IP literal reached the resolver'),
});

async function refusedBeforeConnecting(host: string): Promise<void> {
  await assert.rejects(literalOnly(`http://${host}:9/x`), (err: unknown) => {
    assert.ok(err instanceof CimdFetchRefused, `${host}: ${String(err)}`);
    assert.equal(err.reason, 'address', host);
    return true;
  });
}

test('every address of every special-use IPv4 range is refused, in every spelling a URL host may take', async () => {
  await fc.assert(
    fc.asyncProperty(inRange(V4_RANGES, 32, v4Big), async (n) => {
      assert.ok(isSpecialUseAddress(v4Text(n)), v4Text(n));
      for (const host of v4UrlHosts(n)) {
        assert.ok(isSpecialUseHost(new URL(`https://${host}/jwks`)), host);
        await refusedBeforeConnecting(host);
      }
    }),
  );
});

test('every IPv4 address carried in IPv6 (mapped, compatible, translated, NAT64, 6to4) is refused, public ones too', async () => {
  await fc.assert(
    fc.asyncProperty(anyV4, style, async (n, s) => {
      const hex = `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
      const forms = [
        `::ffff:${v4Text(n)}`,
        `::FFFF:${v4Text(n)}`,
        `::ffff:${hex}`,
        `0:0:0:0:0:ffff:${hex}`,
        v6Text((0xffffn << 32n) | n, s),
        `::ffff:0:${v4Text(n)}`,
        `64:ff9b::${v4Text(n)}`,
        `64:ff9b:1::${hex}`,
        `2002:${hex}::1`,
        ...(n > 1n ? [`::${v4Text(n)}`] : []),
      ];
      for (const form of forms) {
        assert.ok(isSpecialUseAddress(form), form);
        assert.ok(isSpecialUseHost(new URL(`https://[${form}]/jwks`)), form);
        await refusedBeforeConnecting(`[${form}]`);
      }
    }),
  );
});

test('every address of every special-use IPv6 range is refused, in every spelling', async () => {
  await fc.assert(
    fc.asyncProperty(inRange(V6_RANGES, 128, v6Big), style, async (n, s) => {
      const form = v6Text(n, s);
      assert.ok(isSpecialUseAddress(form), form);
      await refusedBeforeConnecting(`[${form}]`);
    }),
  );
});

test('addresses outside every range are not refused: public IPv4, and global unicast IPv6 (2000::/3)', () => {
  fc.assert(
    fc.property(anyV4, (n) => {
      fc.pre(!isRefusedV4(n));
      assert.ok(!isSpecialUseAddress(v4Text(n)), v4Text(n));
    }),
  );
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: (1n << 125n) - 1n }), style, (host, s) => {
      const n = (1n << 125n) | host; // 2000::/3
      fc.pre(!isRefusedV6(n));
      assert.ok(!isSpecialUseAddress(v6Text(n, s)), v6Text(n, s));
    }),
  );
});

test('the ranges named by the attack report, and names reserved for loopback', () => {
  for (const a of ['::ffff:0:0', '::ffff:8.8.8.8', '::ffff:ffff:ffff', '3fff::', '3fff:0fff:ffff::1', '5f00::', '5f00:ffff::1'])
    assert.ok(isSpecialUseAddress(a), a);
  for (const a of ['3fff:1000::1', '5f01::1', '8.8.8.8', '2606:4700::1111']) assert.ok(!isSpecialUseAddress(a), a);
  for (const h of ['localhost', 'LOCALHOST.', 'a.b.localhost']) assert.ok(isSpecialUseHost(new URL(`https://${h}/`)), h);
  assert.ok(!isSpecialUseHost(new URL('https://localhost.example/')));
});
