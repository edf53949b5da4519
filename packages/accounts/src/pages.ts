/**
 * Pages of a list kept in a sorted set (docs/management.md "Lists and pages"): newest first, a
 * bounded number of members a page, and an opaque cursor naming the last member shown, so the
 * pages of a list join to the whole without repeat or loss however the list grows between them.
 */
import type { Redis } from 'ioredis';

/** Items a page holds when the caller does not say. */
export const LIST_PAGE = 50;
/** The most items one page holds, whatever the caller asks. */
export const LIST_MAX_PAGE = 100;
/**
 * A cursor as `next_cursor` gives it: the last shown member's score (ms) and id. The id part is
 * bounded as ids are (a prefix and 32 hexadecimal or url-safe characters).
 */
export const CURSOR_PATTERN = '^[0-9]{1,16}\\.[A-Za-z0-9_-]{1,80}$';

const CURSOR = new RegExp(CURSOR_PATTERN);

/** Whether `cursor` is one `next_cursor` could have given. */
export const isCursor = (cursor: string): boolean => CURSOR.test(cursor);

/** One page: the ids shown, and the cursor of the next page (null: this was the last). */
export interface IdPage {
  ids: string[];
  next: string | null;
}

/**
 * The page of `key` (a sorted set, highest score first; ties by id, as Redis orders them) after
 * `cursor`, at most `limit` ids. Two commands, each reading at most `limit + 1` members.
 */
export async function pageOfIndex(redis: Redis, key: string, cursor: string | null, limit: number): Promise<IdPage> {
  const want = limit + 1;
  let flat: string[];
  if (!cursor) flat = await redis.zrange(key, '+inf', '-inf', 'BYSCORE', 'REV', 'LIMIT', 0, want, 'WITHSCORES');
  else {
    const dot = cursor.indexOf('.');
    const score = cursor.slice(0, dot);
    const last = cursor.slice(dot + 1);
    const rank = await redis.zrevrank(key, last);
    const held = rank === null ? null : await redis.zscore(key, last);
    // The last member shown is still there: the page starts after it, ties included. Gone (trimmed,
    // deleted): after its score, which can only skip a member created in the same millisecond.
    flat =
      rank !== null && held === score
        ? await redis.zrange(key, rank + 1, rank + want, 'REV', 'WITHSCORES')
        : await redis.zrange(key, `(${score}`, '-inf', 'BYSCORE', 'REV', 'LIMIT', 0, want, 'WITHSCORES');
  }
  const rows: { id: string; score: string }[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) rows.push({ id: flat[i]!, score: flat[i + 1]! });
  const shown = rows.slice(0, limit);
  const tail = shown.at(-1);
  return { ids: shown.map((r) => r.id), next: rows.length > limit && tail ? `${tail.score}.${tail.id}` : null };
}
