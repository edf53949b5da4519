/**
 * Paged lists in `svc` (docs/cli.md "Pages"): one page from `--cursor` (or the first), or with
 * `--all` the pages that follow it, at most CLI_MAX_PAGES of them, so a list of any length ends.
 */
import { LIST_MAX_PAGE } from '@svc/management/contract';
import { given, type Options } from './manage-common.ts';

/** The most pages `--all` follows (CLI_MAX_PAGES × the largest page: 2,000 items). */
const CLI_MAX_PAGES = 20;

/** The items of the pages read, and the cursor of the page after them (null: none left). */
export interface Pages<T> {
  items: T[];
  next: string | null;
}

/** Reads one page, or with `--all` the pages that follow, each of the largest size; stops at CLI_MAX_PAGES. */
export async function readPages<T>(
  v: Options,
  page: (query: { cursor?: string; limit?: number }) => Promise<{ items: T[]; next: string | null }>,
): Promise<Pages<T>> {
  const all = v['all'] === true;
  const items: T[] = [];
  let cursor = given(v, 'cursor');
  for (let n = 0; n < (all ? CLI_MAX_PAGES : 1); n++) {
    const got = await page({ ...(cursor ? { cursor } : {}), ...(all ? { limit: LIST_MAX_PAGE } : {}) });
    items.push(...got.items);
    if (!got.next) return { items, next: null };
    cursor = got.next;
  }
  return { items, next: cursor ?? null };
}

/** The line that says how to read on, when a page follows. */
export const moreLine = (next: string | null, command: string): string[] =>
  next ? ['', `More: ${command} --cursor ${next} (or --all)`] : [];
