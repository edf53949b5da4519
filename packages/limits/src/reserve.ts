/**
 * Leased budgets (docs/operations.md "Leased or exact limits"): each replica reserves a block of a
 * window's budget from Redis and admits locally while the block lasts, so most requests cost no
 * round trip. The Redis counter of a (bucket, window) holds what has been reserved, and one Lua
 * script grants at most what is left unreserved, so the grants of all replicas together never pass
 * the limit: a replica admits only tokens it holds, and gives back only tokens it did not use.
 * A block shrinks with what is left (at most 1/`share` of it, and at least what the waiting
 * requests need), down to one request at a time near the limit. The price is false denials: a
 * request refused while tokens sit unused in another replica's block. They are bounded by the
 * blocks held elsewhere; idle blocks are given back, and a replica that dies loses its block for
 * that window (never an over-admission). The same call claims single-use keys (SET NX, e.g. a
 * DPoP proof's jti) and adds counts to hashes, so a refill is still one round trip.
 */
import { script } from './lua.ts';

/**
 * ARGV: 1 share, 2 reservations R, then 6 per reservation: key index, limit, TTL (s), need, want,
 * give back; then claims C, 2 per claim: key index, TTL (s); then tallies T, 4 per tally: key
 * index, field, count, TTL (s). Returns 2 per reservation (grant, reserved after) then 1 per claim
 * (1 claimed, 0 seen before).
 */
export const LEASE = script(`
local share = tonumber(ARGV[1])
local out = {}
local a = 3
for _ = 1, tonumber(ARGV[2]) do
  local key = KEYS[tonumber(ARGV[a])]
  local limit, ttl, need, want, back = tonumber(ARGV[a + 1]), ARGV[a + 2], tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5])
  local reserved = tonumber(redis.call('GET', key) or '0')
  if back > 0 and reserved > 0 then
    back = math.min(back, reserved)
    reserved = reserved - back
    redis.call('DECRBY', key, back)
  end
  local free, grant = limit - reserved, 0
  if need > 0 and free > 0 then
    grant = math.max(need, math.min(want, math.floor(free / share)))
    grant = math.min(grant, free)
    if redis.call('INCRBY', key, grant) == grant then redis.call('EXPIRE', key, ttl) end
    reserved = reserved + grant
  end
  out[#out + 1] = grant
  out[#out + 1] = reserved
  a = a + 6
end
local claims = tonumber(ARGV[a])
a = a + 1
for _ = 1, claims do
  out[#out + 1] = redis.call('SET', KEYS[tonumber(ARGV[a])], '1', 'NX', 'EX', ARGV[a + 1]) and 1 or 0
  a = a + 2
end
local tallies = tonumber(ARGV[a])
a = a + 1
for _ = 1, tallies do
  local key = KEYS[tonumber(ARGV[a])]
  redis.call('HINCRBY', key, ARGV[a + 1], ARGV[a + 2])
  redis.call('EXPIRE', key, ARGV[a + 3], 'NX')
  a = a + 4
end
return out
`);

/** How a block is sized: at most 1/`share` of what is left unreserved, at most `maxBlock`. */
export interface LeaseSizing {
  share: number;
  maxBlock: number;
  /** The first block's size; each refill in the same window doubles it up to `maxBlock`. */
  firstBlock: number;
}

/** The default sizing: eight replicas' blocks together hold at most 1 - (7/8)^8 ≈ 66 % of what is left, each at most 256. */
export const LEASE_SIZING: LeaseSizing = { share: 8, maxBlock: 256, firstBlock: 4 };

/**
 * One replica's block of one (bucket, window): `granted` tokens reserved in Redis, `used` of them
 * admitted. `start` is how much had been reserved before the block (a token's index in the window,
 * used to land on a threshold exactly once).
 */
export class Lease {
  window = -1;
  granted = 0;
  used = 0;
  start = 0;
  /** What Redis held reserved after the last grant, this block included. */
  reservedAfter = 0;
  /** The next refill's wish (doubles per refill within a window). */
  block: number;
  /** The clock of the last token taken (idle blocks are given back). */
  lastTake = 0;
  readonly sizing: LeaseSizing;
  constructor(sizing: LeaseSizing = LEASE_SIZING) {
    this.sizing = sizing;
    this.block = sizing.firstBlock;
  }

  get left(): number {
    return this.granted - this.used;
  }

  /** A new window: the block of the old one lapses with its counter. */
  roll(window: number): void {
    this.window = window;
    this.granted = this.used = this.start = this.reservedAfter = 0;
    this.block = this.sizing.firstBlock;
  }

  /** Takes `n` tokens (one by default): the last one's index in the window (1-based), or 0 when the block has fewer. */
  take(t: number, n = 1): number {
    if (this.used + n > this.granted) return 0;
    this.lastTake = t;
    this.used += n;
    return this.start + this.used;
  }

  /** The refill's wish for `need` more tokens. */
  want(need: number): number {
    return Math.max(need, this.block);
  }

  /** A grant from the script (what was left of the old block went back in the same call). */
  refilled(grant: number, reservedAfter: number): void {
    this.granted = grant;
    this.used = 0;
    this.start = reservedAfter - grant;
    this.reservedAfter = reservedAfter;
    if (grant > 0) this.block = Math.min(this.sizing.maxBlock, this.block * 2);
  }

  /** Gives the unused tokens up locally (they are returned by the call that carries `give back`). */
  surrender(): number {
    const back = this.left;
    this.granted = this.used;
    return back;
  }
}
