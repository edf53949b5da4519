/**
 * The audit log (docs/audit.md): per workspace, append-only, one Redis stream, kept as long as the
 * plan says (AUDIT_RETENTION: days and a most-entries cap). Every entry says when, who (the actor,
 * and as principal and agent: who acted through what), what (the action), to what (the target), from
 * where (the source address) and in which request; never a secret (a key appears by its id and
 * prefix). Each entry is a link of its workspace's hash chain (audit-chain.ts: seq, prev, hash),
 * appended by one script that never forks it. Beside the stream, one index stream per action holds
 * the ids of that action's entries, so a filtered page never scans the log.
 */
import { randomUUID } from 'node:crypto';
import { AUDIT_RETENTION, isPlan, type AuditRetention } from '@svc/policy';
import type { StoreContext } from './context.ts';
import { AUDIT_FILTER_SCAN, AUDIT_MAX_PAGE, AUDIT_PAGE, type AuditAction } from './audit-actions.ts';
import { chainAppender, type EntryContent, type Trim } from './audit-append.ts';
import type { AuditLink } from './audit-chain.ts';
import {
  AUDIT_AGENTS,
  partiesOfActor,
  type AuditAgent,
  type AuditAgentRef,
  type AuditAgents,
  type AuditDelegation,
  type AuditParties,
  type AuditPrincipal,
} from './audit-parties.ts';
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

export interface AuditInput {
  workspace: string;
  /** Who acted, as the log shows it: an email, `key:<prefix>`, `service:<name>`, `svc` or `anonymous`. */
  actor: string;
  action: AuditAction;
  /** What it was done to: `key:<id> (<prefix>)`, `user:<email>`, `project:<slug>`, ... */
  target: string;
  source: string;
  requestId: string;
  /** Short extra facts (a level, an overlap), never a secret. */
  detail?: Record<string, string>;
  /** Who acted, by id and label; read from the actor's label when not given (partiesOfActor). */
  principal?: AuditPrincipal;
  /**
   * Through what: the OAuth client or the API key, or what names it (looked up as the entry is
   * written: AuditAgents); read from the actor's label when not given (often unknown then).
   */
  agent?: AuditAgent | AuditAgentRef;
  /** The token's delegation chain (RFC 8693 `act`), the current actor first; empty when not given. */
  chain?: AuditDelegation[];
}

/**
 * An entry as read: its id and time, its parties (always: for an entry written before they were
 * kept, read from its actor's label), and its link of the chain (since the chain began). A chained
 * entry holds exactly the fields it was hashed with, so an export of it verifies.
 */
export interface AuditEntry extends Omit<AuditInput, keyof AuditParties>, AuditParties, Partial<AuditLink> {
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
  private readonly agents: AuditAgents;
  /** Links entries into their workspace's chain and appends them (audit-append.ts). */
  private readonly append: (content: EntryContent, trim: Trim) => Promise<void>;

  constructor(ctx: StoreContext, agents: AuditAgents) {
    this.ctx = ctx;
    this.agents = agents;
    this.append = chainAppender(ctx);
  }

  /** The workspace's plan's retention (a workspace without a record keeps FREE's). */
  async retentionOf(workspace: string): Promise<AuditRetention> {
    const plan = await this.ctx.redis.hget(K.workspace(workspace), 'plan');
    return AUDIT_RETENTION[isPlan(plan) ? plan : 'FREE'];
  }

  /**
   * Something a person did to their own account (a sign-in, a password, a session, their address),
   * recorded in their own workspace's log with themselves as actor and target, through svc's own
   * pages (sign-in, account pages, dashboard) unless `from` names another agent.
   */
  async recordOwn(
    person: { workspace: string; email: string; id?: string },
    action: AuditAction,
    from: { source: string; requestId?: string; agent?: AuditAgent | AuditAgentRef },
    detail?: Record<string, string>,
  ): Promise<void> {
    await this.record({
      workspace: person.workspace,
      actor: person.email,
      principal: { type: 'user', id: person.id ?? '', label: person.email },
      agent: from.agent ?? AUDIT_AGENTS.web,
      action,
      target: `user:${person.email}`,
      source: from.source,
      requestId: from.requestId ?? randomUUID(),
      ...(detail ? { detail } : {}),
    });
  }

  /**
   * Appends one entry at the end of its workspace's chain (audit-append.ts) and trims to the plan's
   * retention. The trims are approximate, so reads also skip entries whose time is past retention.
   */
  async record(input: AuditInput): Promise<void> {
    const agent = input.agent === undefined || 'type' in input.agent ? input.agent : await this.agents.of(input.agent);
    const keep = await this.retentionOf(input.workspace);
    const at = this.ctx.now();
    await this.append(contentOf(input, agent, at), { minId: Math.max(0, at - keep.days * DAY_MS), cap: keep.maxEntries });
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
    // Past retention are the oldest entries only: once one is kept, so is every later one, whatever
    // its writer's clock said, so an unfiltered export has no hole in its chain (docs/audit.md "Chain").
    let keeping = false;
    for (;;) {
      const batch = (await this.ctx.redis.xrange(K.auditLog(workspace), start, end, 'COUNT', String(AUDIT_EXPORT_BATCH))) as StreamEntry[];
      let chunk = '';
      for (const [id, fields] of batch) {
        const e = auditEntryOf(workspace, id, fields);
        keeping ||= e.at >= oldest;
        if (!keeping || !matches(e)) continue;
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

/**
 * The entry's content as it will read back from the stream, so that the hash taken now is the hash
 * of what an export holds: plain strings made well-formed (a string goes to Redis as UTF-8,
 * which a lone surrogate does not survive), the JSON fields passed through JSON once.
 */
function contentOf(input: AuditInput, agent: AuditAgent | undefined, at: number): EntryContent {
  const parties = partiesOfActor(input.actor);
  const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
  return {
    at,
    workspace: input.workspace,
    actor: input.actor.toWellFormed(),
    action: input.action,
    target: input.target.toWellFormed(),
    source: input.source.toWellFormed(),
    requestId: input.requestId.toWellFormed(),
    detail: json(input.detail ?? {}),
    principal: json(input.principal ?? parties.principal),
    agent: json(agent ?? parties.agent),
    chain: json(input.chain ?? []),
  };
}

/**
 * One stream entry of a workspace's log (its id and XRANGE's flat field list) as an AuditEntry. A
 * chained entry (one with a hash) reads back as it was hashed; one written before the chain began
 * has its parties read from its actor's label.
 */
export function auditEntryOf(workspace: string, id: string, fields: string[]): AuditEntry {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
  const actor = f['actor'] ?? '';
  const entry: AuditEntry = {
    id,
    at: Number(f['at'] ?? id.split('-')[0]),
    workspace,
    actor,
    action: (f['action'] ?? '') as AuditAction,
    target: f['target'] ?? '',
    source: f['source'] ?? '',
    requestId: f['request'] ?? '',
    detail: parseObject(f['detail']) as Record<string, string>,
    ...partiesOf(f, actor),
  };
  if (f['hash'] === undefined) return entry;
  return { ...entry, seq: Number(f['seq']), prev: f['prev'] || null, hash: f['hash'] };
}

/** The parties an entry keeps, else those its actor's label tells (an entry from before they were kept). */
function partiesOf(f: Record<string, string>, actor: string): AuditParties {
  if (f['principal'] === undefined) return partiesOfActor(actor);
  return {
    principal: parseObject(f['principal']) as unknown as AuditPrincipal,
    agent: parseObject(f['agent']) as unknown as AuditAgent,
    chain: parseArray(f['chain']) as AuditDelegation[],
  };
}

function parseJson(text: string | undefined, fallback: unknown): unknown {
  try {
    return text === undefined ? fallback : (JSON.parse(text) as unknown);
  } catch {
    return fallback;
  }
}

function parseObject(text: string | undefined): Record<string, unknown> {
  const value = parseJson(text, {});
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function parseArray(text: string | undefined): unknown[] {
  const value = parseJson(text, []);
  return Array.isArray(value) ? value : [];
}
