/**
 * A list's page (RFC 7644 §3.4.2.4): `startIndex` 1-based (below 1 read as 1), `count` at most
 * SCIM_MAX_PAGE (negative read as 0), SCIM_PAGE when absent. A value that is not an integer is
 * refused `invalidValue`.
 */
import { ScimError } from '@svc/errors';
import { SCIM_MAX_PAGE, SCIM_PAGE } from '@svc/sso';

function integer(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^-?\d{1,9}$/.test(value)) throw new ScimError('invalidValue', `${name} is an integer.`);
  return Number(value);
}

/** The page a query asks for, bounded; `page` slices a sorted list and answers the ListResponse numbers. */
export function pageOf(query: Record<string, unknown>): { startIndex: number; count: number } {
  return {
    startIndex: Math.max(1, integer(query['startIndex'], 'startIndex', 1)),
    count: Math.min(SCIM_MAX_PAGE, Math.max(0, integer(query['count'], 'count', SCIM_PAGE))),
  };
}

/** The one query parameter `name` as a string, or undefined; a repeated one is refused. */
export function queryText(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined || typeof v === 'string') return v;
  throw new ScimError('invalidValue', `${name} is given once.`);
}
