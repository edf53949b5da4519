/**
 * Endpoints per workspace (docs/webhooks.md "Endpoints"): the owner's settings, their signing
 * secrets sealed under KEY_PEPPER (the receiver needs the secret itself, so a hash would not do),
 * each endpoint's delivery state and its delivery log.
 */
import { randomBytes } from 'node:crypto';
import { K, type Redis } from '@svc/accounts';
import { runScript, script } from '@svc/limits';
import { seal, unseal } from '@svc/credentials';
import { WEBHOOK_LOG_SIZE, WEBHOOK_MAX_ENDPOINTS, WEBHOOK_ROTATION_OVERLAP_MS } from './bounds.ts';
import type { WebhookEventType } from './events.ts';
import { WK } from './keys.ts';
import { newSecret } from './signing.ts';

const SECRET_INFO = 'svc webhook secret v1';

/** An endpoint as its owner sees it (never its secret). */
export interface WebhookEndpoint {
  id: string;
  url: string;
  events: WebhookEventType[];
  description: string;
  enabled: boolean;
  createdAt: number;
}

/** Where delivery stands for one endpoint. */
export interface DeliveryState {
  /** The last audit entry handled (delivered or not subscribed to). */
  cursor: string;
  /** Failed attempts at the entry after the cursor. */
  attempts: number;
  /** When the first of those failed (0: none failed). */
  firstFailureAt: number;
  /** No attempt before this time (Unix ms). */
  nextAt: number;
  /** Retried for WEBHOOK_RETRY_WINDOW_MS without success: nothing is sent until the owner re-enables it. */
  failing: boolean;
  lastError: string;
  /** A test event waits to be sent. */
  testPending: boolean;
}

/** One attempt in the delivery log. */
export interface DeliveryAttempt {
  at: number;
  messageId: string;
  type: string;
  attempt: number;
  /** The receiver's HTTP status; null when none came (refused, timed out, unreachable). */
  status: number | null;
  durationMs: number;
  error: string | null;
}

interface Stored extends WebhookEndpoint {
  secret: string;
  previousSecret?: string;
  previousUntil?: number;
}

/** Adds an endpoint unless the workspace has WEBHOOK_MAX_ENDPOINTS (count and add in one step). */
const ADD = script(`
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], 'cursor', ARGV[4], 'attempts', 0, 'firstFailureAt', 0, 'nextAt', 0, 'failing', 0, 'lastError', '', 'test', 0)
return 1`);
/** Writes state fields only while the endpoint exists (a delivery may end after its deletion). */
const SET_STATE = script(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 2))
return 1`);
/** Appends one attempt to the log while the endpoint exists, keeping the newest WEBHOOK_LOG_SIZE. */
const LOG = script(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('LPUSH', KEYS[2], ARGV[2])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
return 1`);

/** Replaces an endpoint only if it is still exactly as read (a change made meanwhile wins). */
const SWAP = script(`
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1`);

/** Workspaces one SSCAN step of the worker's walk asks for. */
const WORKSPACE_SCAN_COUNT = 200;

export type EndpointChange = Partial<Pick<WebhookEndpoint, 'url' | 'events' | 'description' | 'enabled'>>;

export class WebhookStore {
  private readonly redis: Redis;
  private readonly peppers: { pepper: string; previousPepper?: string | null };
  private readonly now: () => number;

  constructor(redis: Redis, peppers: { pepper: string; previousPepper?: string | null }, now: () => number = Date.now) {
    this.redis = redis;
    this.peppers = peppers;
    this.now = now;
  }

  async list(ws: string): Promise<(WebhookEndpoint & { state: DeliveryState })[]> {
    const all = Object.values(await this.redis.hgetall(WK.endpoints(ws))).map((v) => JSON.parse(v) as Stored);
    all.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
    return Promise.all(all.map(async (s) => ({ ...publicOf(s), state: await this.state(ws, s.id) })));
  }

  async get(ws: string, id: string): Promise<(WebhookEndpoint & { state: DeliveryState }) | null> {
    const s = await this.stored(ws, id);
    return s ? { ...publicOf(s), state: await this.state(ws, id) } : null;
  }

  /** A new endpoint and its secret (shown once), or null at WEBHOOK_MAX_ENDPOINTS. Delivery starts after the newest entry. */
  async create(ws: string, input: { url: string; events: WebhookEventType[]; description?: string }) {
    const id = `wh_${randomBytes(12).toString('base64url')}`;
    const secret = newSecret();
    const stored: Stored = {
      id,
      url: input.url,
      events: input.events,
      description: input.description ?? '',
      enabled: true,
      createdAt: this.now(),
      secret: this.seal(secret),
    };
    const newest = (await this.redis.xrevrange(K.auditLog(ws), '+', '-', 'COUNT', 1)) as [string, string[]][];
    const cursor = newest[0]?.[0] ?? '0-0';
    const added = await runScript(
      this.redis,
      ADD,
      [WK.endpoints(ws), WK.state(ws, id)],
      [id, JSON.stringify(stored), WEBHOOK_MAX_ENDPOINTS, cursor],
    );
    if (added !== 1) return null;
    await this.redis.sadd(WK.workspaces(), ws);
    return { endpoint: publicOf(stored), secret };
  }

  /** Changes an endpoint; enabling a failing one resumes delivery at the event it stopped on. */
  async update(ws: string, id: string, change: EndpointChange): Promise<WebhookEndpoint | null> {
    const s = await this.stored(ws, id);
    if (!s) return null;
    // Only the owner's four settings are copied: the secrets, id and creation time are never a change's.
    const next: Stored = { ...s };
    if (change.url !== undefined) next.url = change.url;
    if (change.events !== undefined) next.events = change.events;
    if (change.description !== undefined) next.description = change.description;
    if (change.enabled !== undefined) next.enabled = change.enabled;
    await this.redis.hset(WK.endpoints(ws), id, JSON.stringify(next));
    if (change.enabled === true) await this.setState(ws, id, { failing: 0, attempts: 0, firstFailureAt: 0, nextAt: 0 });
    return publicOf(next);
  }

  async remove(ws: string, id: string): Promise<boolean> {
    const gone = await this.redis.hdel(WK.endpoints(ws), id);
    await this.redis.del(WK.state(ws, id), WK.log(ws, id));
    if ((await this.redis.hlen(WK.endpoints(ws))) === 0) await this.redis.srem(WK.workspaces(), ws);
    return gone === 1;
  }

  /** A new secret (shown once); the old one keeps signing beside it for WEBHOOK_ROTATION_OVERLAP_MS. */
  async rotate(ws: string, id: string): Promise<{ secret: string; previousUntil: number } | null> {
    const s = await this.stored(ws, id);
    if (!s) return null;
    const secret = newSecret();
    const previousUntil = this.now() + WEBHOOK_ROTATION_OVERLAP_MS;
    const next: Stored = { ...s, secret: this.seal(secret), previousSecret: s.secret, previousUntil };
    await this.redis.hset(WK.endpoints(ws), id, JSON.stringify(next));
    return { secret, previousUntil };
  }

  /** The secrets that sign now: the current one, and the previous one during a rotation's overlap. */
  async signingSecrets(ws: string, id: string): Promise<string[]> {
    const s = await this.stored(ws, id);
    if (!s) return [];
    const out = [this.unseal(s.secret)];
    if (s.previousSecret && (s.previousUntil ?? 0) > this.now()) out.push(this.unseal(s.previousSecret));
    return out.filter((x): x is string => x !== null);
  }

  /** Asks the worker to send a test event ahead of the next audit entry. */
  async queueTest(ws: string, id: string): Promise<boolean> {
    return (await this.setState(ws, id, { test: 1 })) === 1;
  }

  async deliveries(ws: string, id: string): Promise<DeliveryAttempt[]> {
    return (await this.redis.lrange(WK.log(ws, id), 0, WEBHOOK_LOG_SIZE - 1)).map((v) => JSON.parse(v) as DeliveryAttempt);
  }

  async log(ws: string, id: string, attempt: DeliveryAttempt): Promise<void> {
    await runScript(this.redis, LOG, [WK.endpoints(ws), WK.log(ws, id)], [id, JSON.stringify(attempt), WEBHOOK_LOG_SIZE]);
  }

  async state(ws: string, id: string): Promise<DeliveryState> {
    const h = await this.redis.hgetall(WK.state(ws, id));
    return {
      cursor: h['cursor'] ?? '0-0',
      attempts: Number(h['attempts'] ?? 0),
      firstFailureAt: Number(h['firstFailureAt'] ?? 0),
      nextAt: Number(h['nextAt'] ?? 0),
      failing: h['failing'] === '1',
      lastError: h['lastError'] ?? '',
      testPending: h['test'] === '1',
    };
  }

  async setState(ws: string, id: string, fields: Record<string, string | number>): Promise<number> {
    const args = Object.entries(fields).flatMap(([k, v]) => [k, String(v)]);
    return (await runScript(this.redis, SET_STATE, [WK.endpoints(ws), WK.state(ws, id)], [id, ...args])) as number;
  }

  /** Workspaces with endpoints, a batch at a time. */
  async *workspaces(): AsyncGenerator<string> {
    let cursor = '0';
    do {
      const [next, batch] = await this.scanWorkspaces(cursor);
      cursor = next;
      yield* batch;
    } while (cursor !== '0');
  }

  /** One SSCAN step over the workspaces with endpoints (the worker's walk keeps the cursor between turns). */
  async scanWorkspaces(cursor: string): Promise<[string, string[]]> {
    return this.redis.sscan(WK.workspaces(), cursor, 'COUNT', WORKSPACE_SCAN_COUNT);
  }

  /**
   * Disables an endpoint whose receiver answered 410 Gone (docs/webhooks.md "Verdicts"), unless it
   * was changed meanwhile (a new URL, or disabled already): the endpoint as it was, or null.
   */
  async disableGone(ws: string, id: string, url: string): Promise<WebhookEndpoint | null> {
    const raw = await this.redis.hget(WK.endpoints(ws), id);
    if (!raw) return null;
    const s = JSON.parse(raw) as Stored;
    if (s.url !== url || !s.enabled) return null;
    const swapped = await runScript(this.redis, SWAP, [WK.endpoints(ws)], [id, raw, JSON.stringify({ ...s, enabled: false })]);
    return swapped === 1 ? publicOf(s) : null;
  }

  async endpoints(ws: string): Promise<WebhookEndpoint[]> {
    return Object.values(await this.redis.hgetall(WK.endpoints(ws))).map((v) => publicOf(JSON.parse(v) as Stored));
  }

  private async stored(ws: string, id: string): Promise<Stored | null> {
    const raw = await this.redis.hget(WK.endpoints(ws), id);
    return raw ? (JSON.parse(raw) as Stored) : null;
  }

  private seal(secret: string): string {
    return seal(this.peppers.pepper, secret, SECRET_INFO);
  }

  /** Sealed under KEY_PEPPER, or under KEY_PEPPER_PREVIOUS while the pepper is being rotated. */
  private unseal(sealed: string): string | null {
    for (const pepper of [this.peppers.pepper, this.peppers.previousPepper]) {
      if (!pepper) continue;
      const value = unseal(pepper, sealed, SECRET_INFO);
      if (typeof value === 'string') return value;
    }
    return null;
  }
}

function publicOf(s: Stored): WebhookEndpoint {
  return { id: s.id, url: s.url, events: s.events, description: s.description, enabled: s.enabled, createdAt: s.createdAt };
}
