/**
 * The audit log (docs/audit.md): per workspace, append-only, one Redis stream, kept as long as the
 * plan says (AUDIT_RETENTION: days and a most-entries cap). Every entry says when, who (the actor),
 * what (the action), to what (the target), from where (the source address) and in which request;
 * never a secret (a key appears by its id and prefix). Beside the stream, one index stream per
 * action holds the ids of that action's entries, so a filtered page never scans the log.
 */
import { randomUUID } from 'node:crypto';
import { runScript, script } from '@svc/limits';
import { AUDIT_RETENTION, isPlan, type AuditRetention } from '@svc/policy';
import type { StoreContext } from './context.ts';
import { AUDIT_FILTER_SCAN, AUDIT_MAX_PAGE, AUDIT_PAGE, type AuditAction } from './audit-actions.ts';
import { K } from './keys.ts';

export { AUDIT_ACTIONS, AUDIT_ACTOR_MAX, AUDIT_FILTER_SCAN, AUDIT_MAX_PAGE, AUDIT_PAGE, type AuditAction } from './audit-actions.ts';

/** Entries read by one Redis command of an export: each command stays well under a millisecond. */
export const AUDIT_EXPORT_BATCH = 500;
/** The export's last line: present only when every kept entry was written (docs/audit.md "Export"). */
export const AUDIT_EXPORT_END = 'complete';

const DAY_MS = 86_400_000;
/**
 * How far an entry's time (`at`, the writer's clock) may be from its stream id (Redis's clock): a
 * date range is sought by id this much wider, then matched on `at` exactly.
 */
export const AUDIT_CLOCK_SLACK_MS = 60_000;

/**
 * Appends one entry and trims, in one script (so the index never names an entry the log lacks
 * for long): the stream to the plan's entry cap and retention (Redis's approximate trims, whole
 * internal nodes, each at most 100 nodes' worth per call), then the action's index to the oldest
 * id left in the stream. KEYS: the log, the action's index. ARGV: oldest id kept (ms), entry cap,
 * then the entry's fields.
 */
const APPEND = script(`
local fields = {}
for i = 3, #ARGV do fields[#fields + 1] = ARGV[i] end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', unpack(fields))
redis.call('XTRIM', KEYS[1], 'MINID', '~', ARGV[1])
local first = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
local floor = first[1] and first[1][1] or id
redis.call('XADD', KEYS[2], 'MINID', '~', floor, id, 'a', '')
return id`);

export interface AuditInput {
  workspace: string;
  /** Who acted: an email, `key:<prefix>`, `service:<name>` or `anonymous`. */
  actor: string;
  action: AuditAction;
  /** What it was done to: `key:<id> (<prefix>)`, `user:<email>`, `project:<slug>`, ... */
  target: string;
  source: string;
  requestId: string;
  /** Short extra facts (a level, an overlap), never a secret. */
  detail?: Record<string, string>;
}

export interface AuditEntry extends AuditInput {
  /** The stream id: orders entries and is the paging cursor. */
  id: string;
  at: number;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass as `cursor` for the next (older) page; null at the end. */
  next: string | null;
}

/** Which entries a page or an export holds: all of them, or those of one action, person or time range. */
export interface AuditFilter {
  action?: AuditAction;
  /** The actor, matched whole and without regard to case. */
  actor?: string;
  /** Entries at or after this time (Unix ms). */
  from?: number;
  /** Entries at or before this time (Unix ms). */
  to?: number;
}

/** A page's request, already validated (the management layer checks what a caller sent). */
export interface AuditPageQuery extends AuditFilter {
  /** A stream id (`<ms>-<seq>`): entries older than it. */
  cursor?: string;
  limit?: number;
}

type StreamEntry = [string, string[]];

export class AuditLog {
  private readonly ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.ctx = ctx;
  }

  /** The workspace's plan's retention (a workspace without a record keeps FREE's). */
  async retentionOf(workspace: string): Promise<AuditRetention> {
    const plan = await this.ctx.redis.hget(K.workspace(workspace), 'plan');
    return AUDIT_RETENTION[isPlan(plan) ? plan : 'FREE'];
  }

  /**
   * Something a person did to their own account (a sign-in, a password, a session, their address),
   * recorded in their own workspace's log with themselves as actor and target.
   */
  async recordOwn(
    person: { workspace: string; email: string },
    action: AuditAction,
    from: { source: string; requestId?: string },
    detail?: Record<string, string>,
  ): Promise<void> {
    await this.record({
      workspace: person.workspace,
      actor: person.email,
      action,
      target: `user:${person.email}`,
      source: from.source,
      requestId: from.requestId ?? randomUUID(),
      ...(detail ? { detail } : {}),
    });
  }

  /**
   * Appends one entry and trims to the plan's retention (APPEND). The trims are approximate, so
   * reads also skip entries whose time is past retention.
   */
  async record(input: AuditInput): Promise<void> {
    const keep = await this.retentionOf(input.workspace);
    const minId = Math.max(0, this.ctx.now() - keep.days * DAY_MS);
    await runScript(
      this.ctx.redis,
      APPEND,
      [K.auditLog(input.workspace), K.auditByAction(input.workspace, input.action)],
      [
        String(minId),
        String(keep.maxEntries),
        'at',
        String(this.ctx.now()),
        'actor',
        input.actor,
        'action',
        input.action,
        'target',
        input.target,
        'source',
        input.source,
        'request',
        input.requestId,
        'detail',
        JSON.stringify(input.detail ?? {}),
      ],
    );
  }

  /**
   * Newest first, `limit` at a time, optionally filtered (AuditFilter); `cursor` continues a
   * listing. Bounded at any log size: unfiltered, one XREVRANGE of at most limit+1 entries; by
   * action, one XREVRANGE of its index and one pipeline of single-id reads. A date range is sought
   * by stream id; a person or date filter reads batches newest first and stops after
   * AUDIT_FILTER_SCAN entries, answering the matches found with `next` where it stopped.
   */
  async page(workspace: string, query: AuditPageQuery = {}): Promise<AuditPage> {
    const limit = Math.min(AUDIT_MAX_PAGE, Math.max(1, query.limit ?? AUDIT_PAGE));
    const oldest = this.ctx.now() - (await this.retentionOf(workspace)).days * DAY_MS;
    const matches = matcher(query);
    const scanning = query.actor !== undefined || query.from !== undefined || query.to !== undefined;
    let end = query.cursor ? `(${query.cursor}` : query.to !== undefined ? String(query.to + AUDIT_CLOCK_SLACK_MS) : '+';
    const start = query.from !== undefined ? String(Math.max(0, query.from - AUDIT_CLOCK_SLACK_MS)) : '-';
    const entries: AuditEntry[] = [];
    let scanned = 0;
    for (;;) {
      const want = scanning ? Math.min(AUDIT_EXPORT_BATCH, AUDIT_FILTER_SCAN - scanned) : limit + 1;
      const found = query.action
        ? await this.byAction(workspace, query.action, end, start, want)
        : ((await this.ctx.redis.xrevrange(K.auditLog(workspace), end, start, 'COUNT', String(want))) as StreamEntry[]);
      for (const [id, fields] of found) {
        const e = auditEntryOf(workspace, id, fields);
        if (e.at < oldest) return { entries, next: null };
        if (!matches(e)) continue;
        if (entries.length === limit) return { entries, next: entries.at(-1)!.id };
        entries.push(e);
      }
      scanned += found.length;
      if (found.length < want) return { entries, next: null };
      // The scan's bound: what matched so far, and where to go on from.
      if (scanned >= AUDIT_FILTER_SCAN) return { entries, next: found.at(-1)![0] };
      end = `(${found.at(-1)![0]}`;
    }
  }

  /** Up to `count` entries of one action, newest first, through its index; stops at one the log no longer holds. */
  private async byAction(workspace: string, action: AuditAction, end: string, start: string, count: number): Promise<StreamEntry[]> {
    const ids = (await this.ctx.redis.xrevrange(K.auditByAction(workspace, action), end, start, 'COUNT', String(count))) as StreamEntry[];
    if (ids.length === 0) return [];
    const reads = this.ctx.redis.pipeline();
    for (const [id] of ids) reads.xrange(K.auditLog(workspace), id, id);
    const replies = (await reads.exec()) ?? [];
    const entries: StreamEntry[] = [];
    for (const [err, reply] of replies) {
      if (err) throw err;
      const entry = (reply as StreamEntry[])[0];
      // Trimmed from the log (the cap or the retention): every older id of the index is too.
      if (!entry) break;
      entries.push(entry);
    }
    return entries;
  }

  /**
   * Every kept entry that `filter` lets through, oldest first, as chunks of JSON lines,
   * AUDIT_EXPORT_BATCH entries read per Redis command (the date range sought by stream id), each
   * chunk read only when the previous one was taken; the last chunk is the line
   * `{"complete":true,"entries":<n>}` (docs/audit.md "Export").
   */
  async *exportChunks(workspace: string, filter: AuditFilter = {}): AsyncGenerator<string> {
    const oldest = this.ctx.now() - (await this.retentionOf(workspace)).days * DAY_MS;
    const matches = matcher(filter);
    let start = filter.from !== undefined ? String(Math.max(0, filter.from - AUDIT_CLOCK_SLACK_MS)) : '-';
    const end = filter.to !== undefined ? String(filter.to + AUDIT_CLOCK_SLACK_MS) : '+';
    let count = 0;
    for (;;) {
      const batch = (await this.ctx.redis.xrange(K.auditLog(workspace), start, end, 'COUNT', String(AUDIT_EXPORT_BATCH))) as StreamEntry[];
      let chunk = '';
      for (const [id, fields] of batch) {
        const e = auditEntryOf(workspace, id, fields);
        if (e.at < oldest || !matches(e)) continue;
        chunk += `${JSON.stringify(e)}\n`;
        count++;
      }
      if (chunk) yield chunk;
      if (batch.length < AUDIT_EXPORT_BATCH) break;
      start = `(${batch.at(-1)![0]}`;
    }
    yield `${JSON.stringify({ [AUDIT_EXPORT_END]: true, entries: count })}\n`;
  }
}

/** Whether an entry passes a filter: its action, its actor (case aside) and its time within the range. */
function matcher(filter: AuditFilter): (e: AuditEntry) => boolean {
  const actor = filter.actor?.toLowerCase();
  return (e) =>
    (filter.action === undefined || e.action === filter.action) &&
    (actor === undefined || e.actor.toLowerCase() === actor) &&
    (filter.from === undefined || e.at >= filter.from) &&
    (filter.to === undefined || e.at <= filter.to);
}

/** One stream entry of a workspace's log (its id and XRANGE's flat field list) as an AuditEntry. */
export function auditEntryOf(workspace: string, id: string, fields: string[]): AuditEntry {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
  const detail = parseDetail(f['detail']);
  return {
    id,
    at: Number(f['at'] ?? id.split('-')[0]),
    workspace,
    actor: f['actor'] ?? '',
    action: (f['action'] ?? '') as AuditAction,
    target: f['target'] ?? '',
    source: f['source'] ?? '',
    requestId: f['request'] ?? '',
    detail,
  };
}

function parseDetail(text: string | undefined): Record<string, string> {
  try {
    const value: unknown = JSON.parse(text ?? '{}');
    return value && typeof value === 'object' ? (value as Record<string, string>) : {};
  } catch {
    return {};
  }
}
