/**
 * In-process cache of resolved credentials (docs/redis-schema.md "Invalidation").
 * - Each entry is tagged with what its answer depends on (the key, the OAuth token and grant and,
 *   for a delegated token, those it descends from, the user, the bot, the workspaces, the
 *   project, the team's project list), spelled as the
 *   invalidation messages spell them (INVALIDATES). An index from tag to entries makes a message
 *   cost what it names: a revocation drops one entry, not the whole cache on every replica. A
 *   message of an unknown shape, or a reconnected subscription (messages may have been missed),
 *   empties the cache.
 * - A lookup that was in flight when a message arrived stores its answer only when the messages
 *   since it started name none of its tags (the last RECENT messages are remembered; past that it
 *   is not stored): an answer read before a revocation never outlives the revocation's message.
 * - Bounded without a cliff: past `maxEntries` the least recently used entry goes, one at a time
 *   (a Map keeps insertion order; a hit moves its entry to the end unless fewer than half the
 *   entries were placed after it: such an entry is far from eviction, and a busy key's hits cost
 *   no reordering; an entry is evicted by the last time it was placed, a little earlier than by its
 *   last use at most).
 * - Entries live at most `ttlMs`: the backstop for a lost message.
 */
import type { Redis } from '@svc/accounts';
import { INVALIDATES, INVALIDATION_CHANNEL } from '@svc/accounts';
import type { SvcError } from '@svc/errors';
import type { ResolvedCaller, Target } from './caller.ts';

export type Resolution = { ok: true; caller: ResolvedCaller } | { ok: false; error: SvcError };

interface Entry {
  value: Resolution;
  /** `placed` when the entry last went to the end of the Map (set, or moved by a hit). */
  placed: number;
  until: number;
  tags: readonly string[];
}

const MAX_ENTRIES = 100_000;
/** Messages remembered for lookups in flight; one that saw more is not stored. */
const RECENT = 256;
/** Stands in the message log for "everything changed" (an unknown message, a reconnect). */
const EVERYTHING = '';
/** Expired entries at the old end checked on each store, so they do not wait for the bound. */
const PRUNE_PER_SET = 2;
const KNOWN_MESSAGE = /^(key|bot|workspace|projects|project|user|oauth|upstreams):./;

/** What a resolution depends on, as invalidation messages name it. */
export function dependencies(credentialHash: string, oauthDigest: string | null, target: Target, value: Resolution): string[] {
  const tags = [INVALIDATES.key(credentialHash)];
  if (oauthDigest) tags.push(INVALIDATES.oauthRecord('AccessToken', oauthDigest));
  if (target.kind === 'project') tags.push(INVALIDATES.project(target.slug));
  // A team's answer lists the team's projects (a legacy team key is granted all of them).
  if (target.kind === 'team') tags.push(INVALIDATES.workspace(target.slug), INVALIDATES.projectsOf(target.slug));
  if (value.ok) {
    const c = value.caller;
    tags.push(INVALIDATES.workspace(c.workspace), INVALIDATES.workspace(c.payer.workspace));
    if (c.type === 'user') tags.push(INVALIDATES.user(c.id));
    if (c.type === 'bot') tags.push(INVALIDATES.bot(c.id));
    if (!c.keyHash) tags.push(INVALIDATES.oauthGrant(c.session));
    // A delegated token stands only while every token it descends from does.
    for (const a of c.ancestors ?? []) tags.push(INVALIDATES.oauthRecord('AccessToken', a.digest), INVALIDATES.oauthGrant(a.grantId));
  }
  return [...new Set(tags)];
}

export class ResolutionCache {
  private readonly entries = new Map<string, Entry>();
  /** Tag -> the cache keys tagged with it: one key as a string (most tags), more as a Set. */
  private readonly byTag = new Map<string, string | Set<string>>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  private maxEntries: number;
  /** Incremented on every invalidation; `recent[g % RECENT]` is the message that ended generation g. */
  private generation = 0;
  /** Counts placements at the end of the Map (Entry.placed). */
  private placed = 0;
  private readonly recent: string[] = new Array<string>(RECENT).fill(EVERYTHING);

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
    // Most recently used last: the first key in the Map is the one to evict. An entry placed
    // fewer than half the entries ago is in the newer half already and stays where it is (no
    // delete and re-insert on every hit of a busy key); an older one moves to the end. The last
    // one placed is always in the newer half, even in a cache of one entry.
    if (this.placed - e.placed >= Math.max(1, this.entries.size >> 1)) {
      this.entries.delete(key);
      this.entries.set(key, e);
      e.placed = ++this.placed;
    }
    return e.value;
  }

  /** The live entry for `key` without counting as a use (tests, diagnostics). */
  peek(key: string): Resolution | undefined {
    const e = this.entries.get(key);
    return e && e.until > this.now() ? e.value : undefined;
  }

  /** Taken before a lookup and handed back to `set`, which then knows what changed meanwhile. */
  get currentGeneration(): number {
    return this.generation;
  }

  set(key: string, value: Resolution, generation: number, tags: readonly string[] = []): void {
    if (this.ttlMs === 0 || this.maxEntries === 0 || this.changedSince(generation, tags)) return;
    this.drop(key);
    const now = this.now();
    for (let i = 0; i < PRUNE_PER_SET; i++) {
      const [oldest, e] = this.entries.entries().next().value ?? [];
      if (oldest === undefined || !e || e.until > now) break;
      this.drop(oldest);
    }
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.drop(oldest);
    }
    let until = now + this.ttlMs;
    if (value.ok && value.caller.expiresAt !== null) until = Math.min(until, value.caller.expiresAt);
    this.entries.set(key, { value, until, tags, placed: ++this.placed });
    for (const tag of tags) {
      const keys = this.byTag.get(tag);
      if (keys === undefined) this.byTag.set(tag, key);
      else if (typeof keys !== 'string') keys.add(key);
      else if (keys !== key) this.byTag.set(tag, new Set([keys, key]));
    }
  }

  /** Drops the entries that depend on what `message` names; an unknown message drops everything. */
  invalidate(message: string): void {
    if (!KNOWN_MESSAGE.test(message)) {
      this.clear();
      return;
    }
    this.log(message);
    const keys = this.byTag.get(message);
    if (keys === undefined) return;
    if (typeof keys === 'string') return this.drop(keys);
    // Every entry depends on it (one workspace's plan, say): emptying is cheaper than 100,000 drops.
    if (keys.size === this.entries.size) return this.clearEntries();
    this.byTag.delete(message);
    for (const key of keys) this.drop(key);
  }

  clear(): void {
    this.log(EVERYTHING);
    this.clearEntries();
  }

  private clearEntries(): void {
    this.entries.clear();
    this.byTag.clear();
  }

  /** Changes the bound; past it the least recently used entries go at once. */
  resize(maxEntries: number): void {
    this.maxEntries = maxEntries;
    while (this.entries.size > maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.drop(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private log(message: string): void {
    this.recent[this.generation % RECENT] = message;
    this.generation++;
  }

  /** Whether a message since `generation` may have changed an answer tagged `tags`. */
  private changedSince(generation: number, tags: readonly string[]): boolean {
    if (this.generation - generation > RECENT) return true;
    for (let g = generation; g < this.generation; g++) {
      const message = this.recent[g % RECENT] ?? EVERYTHING;
      if (message === EVERYTHING || tags.includes(message)) return true;
    }
    return false;
  }

  private drop(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    for (const tag of e.tags) {
      const keys = this.byTag.get(tag);
      if (keys === key) this.byTag.delete(tag);
      else if (keys !== undefined && typeof keys !== 'string') {
        keys.delete(key);
        if (keys.size === 1) this.byTag.set(tag, keys.values().next().value as string);
      }
    }
  }

  /** Subscribes `subscriber` (a dedicated connection) to the invalidation channel. */
  async subscribe(subscriber: Redis): Promise<void> {
    subscriber.on('message', (_channel: string, message: string) => this.invalidate(message));
    subscriber.on('ready', () => this.clear());
    await subscriber.subscribe(INVALIDATION_CHANNEL);
  }
}
