/**
 * In-process cache of resolved credentials. A revocation or a plan change must reach every
 * replica within one second: every message on the invalidation channel empties the cache, and
 * entries live at most `ttlMs` as the backstop for a lost message (and the cache is emptied
 * whenever the subscription reconnects, since messages may have been missed meanwhile).
 */
import type { Redis } from '@svc/accounts';
import { INVALIDATION_CHANNEL } from '@svc/accounts';
import type { SvcError } from '@svc/errors';
import type { ResolvedCaller } from './caller.ts';

export type Resolution = { ok: true; caller: ResolvedCaller } | { ok: false; error: SvcError };

interface Entry {
  value: Resolution;
  until: number;
}

const MAX_ENTRIES = 50_000;

export class ResolutionCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  /** Incremented on every clear, so a lookup started before a clear does not store stale data. */
  private generation = 0;

  constructor(ttlMs: number, now: () => number = Date.now) {
    this.ttlMs = ttlMs;
    this.now = now;
  }

  get(key: string): Resolution | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  get currentGeneration(): number {
    return this.generation;
  }

  set(key: string, value: Resolution, generation: number): void {
    if (this.ttlMs === 0 || generation !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    let until = this.now() + this.ttlMs;
    if (value.ok && value.caller.expiresAt !== null) until = Math.min(until, value.caller.expiresAt);
    this.entries.set(key, { value, until });
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Subscribes `subscriber` (a dedicated connection) to the invalidation channel. */
  async subscribe(subscriber: Redis): Promise<void> {
    subscriber.on('message', () => this.clear());
    subscriber.on('ready', () => this.clear());
    await subscriber.subscribe(INVALIDATION_CHANNEL);
  }
}
