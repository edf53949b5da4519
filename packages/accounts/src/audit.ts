/**
 * The audit log (docs/audit.md): per workspace, append-only, one Redis stream, entries kept 90 days.
 * Every entry says when, who (the actor), what (the action), to what (the target), from where (the
 * source address) and in which request; never a secret (a key appears by its id and prefix).
 */
import { randomUUID } from 'node:crypto';
import type { StoreContext } from './context.ts';
import { K } from './keys.ts';

/** The actions recorded, one name each (docs/audit.md lists what each means). */
export const AUDIT_ACTIONS = [
  'project.created',
  'key.created',
  'key.rolled',
  'key.limit_changed',
  'key.revoked',
  'key.reported',
  'key.expired',
  'member.added',
  'member.role_changed',
  'member.removed',
  'access_request.approved',
  'access_request.denied',
  'service_account.created',
  'service_account.granted',
  'service_account.key_rotated',
  'service_account.revoked',
  'personal_key.revoked',
  'oauth_app.authorized',
  'oauth_app.revoked',
  'session.ended',
  'email.verified',
  'password.changed',
  'signin.succeeded',
  'signin.failed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** How long entries are kept. */
const AUDIT_RETENTION_MS = 90 * 86_400_000;
/** Entries per page when none is asked for, and the most a page may hold. */
const PAGE = 50;
const MAX_PAGE = 500;

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

export class AuditLog {
  private readonly ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.ctx = ctx;
  }

  /**
   * Appends one entry and trims what is older than the retention, in one command. The trim is
   * Redis's approximate one (whole internal nodes, by stream id, which is Redis's clock), so reads
   * also skip entries whose time is past retention.
   */
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

  async record(input: AuditInput): Promise<void> {
    const minId = Math.max(0, this.ctx.now() - AUDIT_RETENTION_MS);
    await this.ctx.redis.xadd(
      K.auditLog(input.workspace),
      'MINID',
      '~',
      String(minId),
      '*',
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
    );
  }

  /** Newest first, `limit` at a time, optionally one action only; `cursor` continues a listing. */
  async page(workspace: string, opts: { cursor?: string; limit?: number; action?: string } = {}): Promise<AuditPage> {
    const limit = Math.min(MAX_PAGE, Math.max(1, opts.limit ?? PAGE));
    const entries: AuditEntry[] = [];
    const oldest = this.ctx.now() - AUDIT_RETENTION_MS;
    let end = opts.cursor ? `(${opts.cursor}` : '+';
    // Filtering by action may need several reads; each reads a batch older than the last.
    for (;;) {
      const batch = (await this.ctx.redis.xrevrange(K.auditLog(workspace), end, '-', 'COUNT', String(limit + 1))) as [string, string[]][];
      for (const [id, fields] of batch) {
        const e = entryOf(workspace, id, fields);
        if (e.at < oldest) return { entries, next: null };
        if (opts.action && e.action !== opts.action) continue;
        if (entries.length === limit) return { entries, next: entries.at(-1)!.id };
        entries.push(e);
      }
      if (batch.length <= limit) return { entries, next: null };
      end = `(${batch.at(-1)![0]}`;
    }
  }

  /** Every entry kept, oldest first, as JSON lines (the export). */
  async exportLines(workspace: string): Promise<string[]> {
    const all = (await this.ctx.redis.xrange(K.auditLog(workspace), '-', '+')) as [string, string[]][];
    const oldest = this.ctx.now() - AUDIT_RETENTION_MS;
    return all
      .map(([id, fields]) => entryOf(workspace, id, fields))
      .filter((e) => e.at >= oldest)
      .map((e) => JSON.stringify(e));
  }
}

function entryOf(workspace: string, id: string, fields: string[]): AuditEntry {
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
