/**
 * A person's passkeys (WebAuthn credentials, docs/auth-service.md "Passkeys"): each public key
 * with its signature counter. The checks of attestations and assertions are the auth-service's;
 * this store keeps what they need, bounds how many a person has, and moves each counter only
 * forward (WebAuthn Level 3 §7.2 step 22: a counter that does not grow may be a cloned
 * authenticator).
 */
import type { StoreContext } from './context.ts';
import { K } from './keys.ts';
import { runScript, script } from '@svc/limits';

/** How many passkeys one account may hold (docs/auth-service.md "Passkeys"). */
export const MAX_PASSKEYS_PER_ACCOUNT = 10;

/** A stored passkey: the credential's id and public key (base64url), as WebAuthn gave them. */
export interface Passkey {
  id: string;
  publicKey: string;
  counter: number;
  transports: string[];
  createdAt: number;
}

/** KEYS[1] records, KEYS[2] counters; ARGV id, record, counter, max. 0 when the account is full. */
const ADD = script(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return 1
`);

/**
 * KEYS[1] counters; ARGV id, new counter. The counter moves only forward; an authenticator that
 * keeps no counter reports 0 each time, and 0 after 0 is accepted (WebAuthn Level 3 §6.1.1).
 */
const USE = script(`
local old = redis.call('HGET', KEYS[1], ARGV[1])
if not old then return 0 end
local new = tonumber(ARGV[2])
if new > tonumber(old) or (new == 0 and tonumber(old) == 0) then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return 1
end
return 0
`);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

export class PasskeyStore {
  private readonly ctx: StoreContext;
  constructor(ctx: StoreContext) {
    this.ctx = ctx;
  }

  /** The person's passkeys, oldest first. */
  async list(userId: string): Promise<Passkey[]> {
    const [records, counters] = await Promise.all([
      this.ctx.redis.hgetall(K.factorPasskeys(userId)),
      this.ctx.redis.hgetall(K.factorPasskeyCounters(userId)),
    ]);
    const out: Passkey[] = [];
    for (const [id, json] of Object.entries(records)) {
      const r: unknown = JSON.parse(json);
      if (!isRecord(r) || typeof r['publicKey'] !== 'string') continue;
      const transports = Array.isArray(r['transports']) ? r['transports'].filter((t) => typeof t === 'string') : [];
      out.push({ id, publicKey: r['publicKey'], counter: Number(counters[id] ?? 0), transports, createdAt: Number(r['createdAt'] ?? 0) });
    }
    return out.sort((a, b) => a.createdAt - b.createdAt);
  }

  async get(userId: string, id: string): Promise<Passkey | null> {
    return (await this.list(userId)).find((p) => p.id === id) ?? null;
  }

  async count(userId: string): Promise<number> {
    return this.ctx.redis.hlen(K.factorPasskeys(userId));
  }

  /** Adds a passkey; 'full' when the account holds MAX_PASSKEYS_PER_ACCOUNT already. */
  async add(userId: string, p: Omit<Passkey, 'createdAt'>): Promise<'added' | 'full'> {
    const record = JSON.stringify({ publicKey: p.publicKey, transports: p.transports, createdAt: this.ctx.now() });
    const keys = [K.factorPasskeys(userId), K.factorPasskeyCounters(userId)];
    const done = Number(await runScript(this.ctx.redis, ADD, keys, [p.id, record, String(p.counter), String(MAX_PASSKEYS_PER_ACCOUNT)]));
    return done === 1 ? 'added' : 'full';
  }

  /** Records an assertion's counter: false when it did not move forward (a replay or a clone). */
  async use(userId: string, id: string, counter: number): Promise<boolean> {
    return Number(await runScript(this.ctx.redis, USE, [K.factorPasskeyCounters(userId)], [id, String(counter)])) === 1;
  }

  async remove(userId: string, id: string): Promise<boolean> {
    const removed = await this.ctx.redis.hdel(K.factorPasskeys(userId), id);
    await this.ctx.redis.hdel(K.factorPasskeyCounters(userId), id);
    return removed === 1;
  }

  /** Every passkey of the person removed (a workspace owner's reset). */
  async removeAll(userId: string): Promise<void> {
    await this.ctx.redis.del(K.factorPasskeys(userId), K.factorPasskeyCounters(userId));
  }
}
