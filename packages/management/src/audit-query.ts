/**
 * What a caller may ask of the audit log, checked before Redis sees it (docs/audit.md "Reading"):
 * a cursor is a stream id, a limit a whole number from 1 to AUDIT_MAX_PAGE, an action one of
 * AUDIT_ACTIONS. Anything else is a 400 naming the parameter, never a Redis error.
 */
import { AUDIT_ACTIONS, AUDIT_MAX_PAGE, AUDIT_PAGE, type AuditAction } from '@svc/accounts';
import { ManagementError } from './types.ts';

/** A page's parameters as they came (query-string values; absent or empty means not given). */
export interface AuditQueryInput {
  cursor?: string | null;
  action?: string | null;
  limit?: string | number | null;
}

export interface AuditQuery {
  cursor?: string;
  action?: AuditAction;
  limit: number;
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
  const query: AuditQuery = { limit: AUDIT_PAGE };
  if (given(input.cursor)) {
    if (!isStreamId(String(input.cursor)))
      throw new ManagementError(400, 'The cursor is not one this log gave: pass the "next" value of the previous page as it is.', 'cursor');
    query.cursor = String(input.cursor);
  }
  if (given(input.action)) {
    const action = String(input.action);
    if (!(AUDIT_ACTIONS as readonly string[]).includes(action))
      throw new ManagementError(400, `The action must be one of the recorded actions (${AUDIT_ACTIONS.join(', ')}).`, 'action');
    query.action = action as AuditAction;
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
