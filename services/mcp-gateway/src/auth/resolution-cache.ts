/**
 * In-process cache of resolved credentials (docs/redis-schema.md "Invalidation").
 * - Each entry is tagged with what its answer depends on (the key, the grant, the user, the bot,
 *   the workspaces, the project), spelled as the invalidation messages spell them (INVALIDATES).
 *   A message drops only the entries tagged with it, so a revocation costs one entry, not the
 *   whole cache on every replica. A message of an unknown shape, or a reconnected subscription
 *   (messages may have been missed), empties the cache.
 * - Bounded without a cliff: past `maxEntries` the least recently used entry goes, one at a time.
 * - Entries live at most `ttlMs`: the backstop for a lost message.
 */
import type { Redis } from '@svc/accounts';
import { INVALIDATES, INVALIDATION_CHANNEL } from '@svc/accounts';
import type { SvcError } from '@svc/errors';
import type { ResolvedCaller, Target } from './caller.ts';

export type Resolution = { ok: true; caller: ResolvedCaller } | { ok: false; error: SvcError };

interface Entry {
  value: Resolution;
  until: number;
  tags: string[];
}

const MAX_ENTRIES = 100_000;
const KNOWN_MESSAGE = /^(key|bot|workspace|project|user|oauth):./;

/** What a resolution depends on, as invalidation messages name it. */
export function dependencies(credentialHash: string, oauthDigest: string | null, target: Target, value: Resolution): string[] {
  const tags = [INVALIDATES.key(credentialHash)];
  if (oauthDigest) tags.push(INVALIDATES.oauthRecord('AccessToken', oauthDigest));
  if (target.kind === 'project') tags.push(INVALIDATES.project(target.slug));
  if (target.kind === 'team') tags.push(INVALIDATES.workspace(target.slug));
  if (value.ok) {
    const c = value.caller;
    tags.push(INVALIDATES.workspace(c.workspace), INVALIDATES.workspace(c.payer.workspace));
    if (c.type === 'user') tags.push(INVALIDATES.user(c.id));
    if (c.type === 'bot') tags.push(INVALIDATES.bot(c.id));
    if (!c.keyHash) tags.push(INVALIDATES.oauthGrant(c.session));
  }
  return [...new Set(tags)];
}

export class ResolutionCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byTag = new Map<string, Set<string>>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly maxEntries: number;
  /** Incremented on every invalidation, so a lookup started before one does not store stale data. */
  private generation = 0;

  constructor(ttlMs: number, now: () => number = Date.now, maxEntries = MAX_ENTRIES) {
    this.ttlMs = ttlMs;
    this.now = now;
    this.maxEntries = maxEntries;
  }

  get(key: string): Resolution | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until <= this.now()) {
      this.drop(key);
      return undefined;
    }
    // Most recently used last: Map keeps insertion order, so the first key is the one to evict.
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value;
  }

  get currentGeneration(): number {
    return this.generation;
  }

  set(key: string, value: Resolution, generation: number, tags: string[] = []): void {
    if (this.ttlMs === 0 || generation !== this.generation) return;
    this.drop(key);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.drop(oldest);
    }
    let until = this.now() + this.ttlMs;
    if (value.ok && value.caller.expiresAt !== null) until = Math.min(until, value.caller.expiresAt);
    this.entries.set(key, { value, until, tags });
    for (const tag of tags) {
      let keys = this.byTag.get(tag);
      if (!keys) this.byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
  }

  /** Drops the entries that depend on what `message` names; an unknown message drops everything. */
  invalidate(message: string): void {
    this.generation++;
    if (!KNOWN_MESSAGE.test(message)) {
      this.entries.clear();
      this.byTag.clear();
      return;
    }
    for (const key of [...(this.byTag.get(message) ?? [])]) this.drop(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.byTag.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private drop(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    for (const tag of e.tags) {
      const keys = this.byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.byTag.delete(tag);
    }
  }

  /** Subscribes `subscriber` (a dedicated connection) to the invalidation channel. */
  async subscribe(subscriber: Redis): Promise<void> {
    subscriber.on('message', (_channel: string, message: string) => this.invalidate(message));
    subscriber.on('ready', () => this.clear());
    await subscriber.subscribe(INVALIDATION_CHANNEL);
  }
}
