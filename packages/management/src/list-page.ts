/**
 * A list's page parameters, checked before Redis sees them (docs/management.md "Lists and pages"):
 * a cursor is the `next_cursor` of an earlier page as it was given, a limit a whole number from 1
 * to LIST_MAX_PAGE. Anything else is a 400 naming the parameter, never a Redis error.
 */
import { isCursor, LIST_MAX_PAGE, LIST_PAGE } from '@svc/accounts';
import { ManagementError } from './types.ts';

/** A page's parameters as they came (query-string values; absent or empty means not given). */
export interface PageInput {
  cursor?: string | null;
  limit?: string | number | null;
}

export interface PageQuery {
  cursor: string | null;
  limit: number;
}

const given = (v: string | number | null | undefined): v is string | number => v !== undefined && v !== null && v !== '';

export function parsePageQuery(input: PageInput = {}): PageQuery {
  const query: PageQuery = { cursor: null, limit: LIST_PAGE };
  if (given(input.cursor)) {
    if (!isCursor(String(input.cursor)))
      throw new ManagementError(
        400,
        'The cursor is not one this list gave: pass the "next_cursor" of the previous page as it is.',
        'cursor',
      );
    query.cursor = String(input.cursor);
  }
  if (given(input.limit)) {
    const text = String(input.limit);
    const limit = /^\d{1,4}$/.test(text) ? Number(text) : NaN;
    if (!(limit >= 1 && limit <= LIST_MAX_PAGE))
      throw new ManagementError(400, `The limit must be a whole number from 1 to ${LIST_MAX_PAGE}.`, 'limit');
    query.limit = limit;
  }
  return query;
}
