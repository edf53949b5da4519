/**
 * What a caller may ask of the audit log, checked before Redis sees it (docs/audit.md "Reading"):
 * a cursor is a stream id, a limit a whole number from 1 to AUDIT_MAX_PAGE, an action one of
 * AUDIT_ACTIONS, a person (actor) at most AUDIT_ACTOR_MAX characters, `from` and `to` a date
 * (YYYY-MM-DD, UTC, the whole day) or an RFC 3339 time, `from` not after `to`. Anything else is a
 * 400 naming the parameter, never a Redis error.
 */
import { AUDIT_ACTIONS, AUDIT_ACTOR_MAX, AUDIT_MAX_PAGE, AUDIT_PAGE, type AuditAction, type AuditFilter } from '@svc/accounts';
import { ManagementError } from './types.ts';

/** A page's parameters as they came (query-string values; absent or empty means not given). */
export interface AuditQueryInput {
  cursor?: string | null;
  action?: string | null;
  limit?: string | number | null;
  actor?: string | null;
  from?: string | null;
  to?: string | null;
}

export interface AuditQuery extends AuditFilter {
  cursor?: string;
  limit: number;
}

/** A date (YYYY-MM-DD) or an RFC 3339 date-time (RFC 3339 §5.6). */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
const DAY_MS = 86_400_000;

/** A bound of the range in Unix ms: a date is its first millisecond (`from`) or its last (`to`), in UTC. */
function timeOf(text: string, field: 'from' | 'to'): number {
  const day = DATE.exec(text);
  const ms = day ? Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3])) : DATE_TIME.test(text) ? Date.parse(text) : NaN;
  // Date.UTC rolls 2026-02-31 over to March: a date must read back as written.
  if (Number.isNaN(ms) || (day && new Date(ms).toISOString().slice(0, 10) !== text) || ms < 0)
    throw new ManagementError(400, `The ${field} must be a date (YYYY-MM-DD) or a time (RFC 3339, e.g. 2026-01-31T12:00:00Z).`, field);
  return day && field === 'to' ? ms + DAY_MS - 1 : ms;
}

/** The filter of a page or an export (docs/audit.md "Reading"): the action, the person and the time range. */
export function parseAuditFilter(input: AuditQueryInput): AuditFilter {
  const given = (v: string | null | undefined): v is string => v !== undefined && v !== null && v !== '';
  const filter: AuditFilter = {};
  if (given(input.action)) {
    if (!(AUDIT_ACTIONS as readonly string[]).includes(input.action))
      throw new ManagementError(400, `The action must be one of the recorded actions (${AUDIT_ACTIONS.join(', ')}).`, 'action');
    filter.action = input.action as AuditAction;
  }
  if (given(input.actor)) {
    const actor = input.actor.trim();
    if (actor.length === 0 || actor.length > AUDIT_ACTOR_MAX)
      throw new ManagementError(400, `The person (actor) must be 1 to ${AUDIT_ACTOR_MAX} characters, e.g. an email address.`, 'actor');
    filter.actor = actor;
  }
  if (given(input.from)) filter.from = timeOf(input.from, 'from');
  if (given(input.to)) filter.to = timeOf(input.to, 'to');
  if (filter.from !== undefined && filter.to !== undefined && filter.from > filter.to)
    throw new ManagementError(400, 'The range ends before it starts: "to" must not be before "from".', 'to');
  return filter;
}

/** A Redis stream id: two unsigned 64-bit decimal numbers, `<ms>-<seq>`. */
const STREAM_ID = /^(\d{1,20})-(\d{1,20})$/;
const U64_MAX = 2n ** 64n - 1n;

function isStreamId(value: string): boolean {
  const m = STREAM_ID.exec(value);
  return m !== null && BigInt(m[1]!) <= U64_MAX && BigInt(m[2]!) <= U64_MAX;
}

export function parseAuditQuery(input: AuditQueryInput): AuditQuery {
  const given = (v: string | number | null | undefined) => v !== undefined && v !== null && v !== '';
  const query: AuditQuery = { ...parseAuditFilter(input), limit: AUDIT_PAGE };
  if (given(input.cursor)) {
    if (!isStreamId(String(input.cursor)))
      throw new ManagementError(400, 'The cursor is not one this log gave: pass the "next" value of the previous page as it is.', 'cursor');
    query.cursor = String(input.cursor);
  }
  if (given(input.limit)) {
    const text = String(input.limit);
    const limit = /^\d{1,4}$/.test(text) ? Number(text) : NaN;
    if (!(limit >= 1 && limit <= AUDIT_MAX_PAGE))
      throw new ManagementError(400, `The limit must be a whole number from 1 to ${AUDIT_MAX_PAGE}.`, 'limit');
    query.limit = limit;
  }
  return query;
}
