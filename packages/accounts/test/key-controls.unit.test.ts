/**
 * A key's status rule at its boundaries, and its IP allow-list (docs/contract.md "Credentials"):
 * every CIDR it accepts, matched as a reference computation on BigInt says, for random blocks and
 * addresses inside and outside them, IPv4 and IPv6.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { allowedBy, compileAllowedIps, MAX_ALLOWED_IPS, normalizeAllowedIps } from '../src/key-controls.ts';
import { AccountError } from '../src/errors.ts';
import { EXPIRING_SHARE, EXPIRING_WINDOW_MS, keyStatus } from '../src/key-status.ts';

const DAY = 86_400_000;
const T = Date.UTC(2026, 0, 1);
const key = (lifetimeMs: number | null, over: Partial<{ revoked: boolean; disabled: boolean }> = {}) => ({
  revoked: false,
  disabled: false,
  createdAt: T,
  expiresAt: lifetimeMs === null ? null : T + lifetimeMs,
  ...over,
});

test('status: a 30-day key is expiring in its last 7 days only, to the millisecond', () => {
  const k = key(30 * DAY);
  assert.equal(EXPIRING_WINDOW_MS, 7 * DAY);
  assert.equal(keyStatus(k, T + 23 * DAY), 'active');
  assert.equal(keyStatus(k, T + 23 * DAY + 1), 'expiring');
  assert.equal(keyStatus(k, T + 30 * DAY - 1), 'expiring');
  assert.equal(keyStatus(k, T + 30 * DAY), 'expired');
});

test('status: a 7-day key is not expiring on its first day; it is in the last quarter of its life', () => {
  const k = key(7 * DAY);
  assert.equal(EXPIRING_SHARE, 0.25);
  assert.equal(keyStatus(k, T), 'active');
  assert.equal(keyStatus(k, T + DAY), 'active');
  const window = 0.25 * 7 * DAY;
  assert.equal(keyStatus(k, T + 7 * DAY - window), 'active');
  assert.equal(keyStatus(k, T + 7 * DAY - window + 1), 'expiring');
  // 28 days is where the quarter meets the 7 days.
  assert.equal(keyStatus(key(28 * DAY), T + 21 * DAY), 'active');
  assert.equal(keyStatus(key(28 * DAY), T + 21 * DAY + 1), 'expiring');
});

test('status: revoked before expired before disabled; a key without expiry is never expiring', () => {
  assert.equal(keyStatus(key(null), T + 10_000 * DAY), 'active');
  assert.equal(keyStatus(key(DAY, { revoked: true, disabled: true }), T + 2 * DAY), 'revoked');
  assert.equal(keyStatus(key(DAY, { disabled: true }), T + 2 * DAY), 'expired');
  assert.equal(keyStatus(key(30 * DAY, { disabled: true }), T + 29 * DAY), 'disabled');
});

test('allow-list: entries are normalized; a bad one is refused by name; at most MAX_ALLOWED_IPS', () => {
  assert.deepEqual(normalizeAllowedIps([' 203.0.113.5 ', '2001:DB8::/32', '10.0.0.0/8', '10.0.0.0/8', '']), [
    '203.0.113.5/32',
    '2001:db8::/32',
    '10.0.0.0/8',
  ]);
  for (const bad of ['203.0.113.0/33', '2001:db8::/129', 'example.com', '10.0.0.0/8/8', '10.0.0/8', '1.2.3.4/-1', '::1/ 64']) {
    assert.throws(
      () => normalizeAllowedIps([bad]),
      (err: unknown) => err instanceof AccountError && err.code === 'invalid' && err.message.includes(`"${bad.trim()}"`),
      bad,
    );
  }
  assert.equal(MAX_ALLOWED_IPS, 32);
  const many = Array.from({ length: MAX_ALLOWED_IPS + 1 }, (_, i) => `10.0.${i}.0/24`);
  assert.equal(normalizeAllowedIps(many.slice(0, MAX_ALLOWED_IPS)).length, MAX_ALLOWED_IPS);
  assert.throws(() => normalizeAllowedIps(many), /at most 32 entries/);
});

test('allow-list: an IPv4 block matches the IPv4-mapped IPv6 form; an unknown address never matches', () => {
  const list = compileAllowedIps(normalizeAllowedIps(['203.0.113.0/24']))!;
  assert.equal(allowedBy(list, '203.0.113.9'), true);
  assert.equal(allowedBy(list, '::ffff:203.0.113.9'), true);
  assert.equal(allowedBy(list, '203.0.114.9'), false);
  assert.equal(allowedBy(list, ''), false);
  assert.equal(allowedBy(list, 'not an address'), false);
  assert.equal(compileAllowedIps([]), null);
});

/** An address of `bits` bits (32 or 128) as text. */
function addressText(value: bigint, bits: 32 | 128): string {
  if (bits === 32) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
  const groups = [];
  for (let i = 7; i >= 0; i--) groups.push(((value >> BigInt(i * 16)) & 0xffffn).toString(16));
  return groups.join(':');
}

/** Whether `address` lies in `network/prefix`, computed on BigInt (the reference). */
function inBlock(address: bigint, network: bigint, prefix: number, bits: 32 | 128): boolean {
  const host = BigInt(bits - prefix);
  return address >> host === network >> host;
}

for (const bits of [32, 128] as const) {
  test(`allow-list property (${bits === 32 ? 'IPv4' : 'IPv6'}): an address is allowed exactly when it is inside one of the blocks`, () => {
    const max = (1n << BigInt(bits)) - 1n;
    const value = fc.bigInt({ min: 0n, max });
    const block = fc.record({ network: value, prefix: fc.integer({ min: 0, max: bits }) });
    // An address inside the first block (its network with random host bits), and one anywhere.
    const sample = fc.tuple(fc.array(block, { minLength: 1, maxLength: 4 }), value, value);
    fc.assert(
      fc.property(sample, ([blocks, hostBits, anywhere]) => {
        const list = compileAllowedIps(normalizeAllowedIps(blocks.map((b) => `${addressText(b.network, bits)}/${b.prefix}`)))!;
        const first = blocks[0]!;
        const hostMask = (1n << BigInt(bits - first.prefix)) - 1n;
        const inside = (first.network & ~hostMask & max) | (hostBits & hostMask);
        assert.equal(
          allowedBy(list, addressText(inside, bits)),
          true,
          `${addressText(inside, bits)} in ${blocks.map((b) => `${b.network}/${b.prefix}`).join(' ')}`,
        );
        const expected = blocks.some((b) => inBlock(anywhere, b.network, b.prefix, bits));
        assert.equal(allowedBy(list, addressText(anywhere, bits)), expected, addressText(anywhere, bits));
      }),
      { numRuns: 500 },
    );
  });
}
