/**
 * The tables of `svc` (docs/cli.md "What is printed"): left-aligned columns under a bold header,
 * fitted to the terminal's width by cutting the widest free-text column (a name, a note, a reason)
 * with an ellipsis, never an id; times relative to now. The table is kept as data until it is
 * written, since only the writer knows the stream's width and whether it takes colour.
 */
import { relativeTime } from './relative-time.ts';
import { paint, type Style } from './style.ts';

export interface ColumnOptions {
  /** Free text that may be cut to fit the width (ids, levels and prefixes never are). */
  free?: boolean;
  /** An RFC 3339 time, shown relative to now ("3 minutes ago"). */
  time?: boolean;
  /** The style of a cell, given its text (a status in colour). */
  style?: (cell: string) => Style | undefined;
}

export interface Table {
  kind: 'table';
  header: string[];
  rows: string[][];
  options: ColumnOptions[];
}

export type Column<T> = [key: keyof T & string, header: string, options?: ColumnOptions];

/** The style of the usual status words: active green, stopped red, ending yellow. */
export function statusStyle(cell: string): Style | undefined {
  if (/^(active|enabled|approved|ok)$/.test(cell)) return 'green';
  if (/^(revoked|disabled|denied|failing|expired)$/.test(cell)) return 'red';
  if (/^(expiring|pending|replaced by)/.test(cell)) return 'yellow';
  return undefined;
}

/** `rows` as one table (a one-line list, so it spreads into a command's lines). */
export function columns<T extends object>(rows: readonly T[], cols: Column<T>[]): [Table] {
  const cell = (r: T, k: keyof T) => (r[k] === null || r[k] === undefined ? '-' : String(r[k]));
  return [
    {
      kind: 'table',
      header: cols.map(([, h]) => h),
      rows: rows.map((r) => cols.map(([k]) => cell(r, k))),
      options: cols.map(([, , o]) => o ?? {}),
    },
  ];
}

/** The first `width` characters of `text`, the last of them an ellipsis when it was cut. */
function cut(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

const length = (text: string) => [...text].length;

/** The width of each column once the table fits `width`: the widest free-text column gives way, a character at a time, down to its header. */
function fitWidths(table: Pick<Table, 'header' | 'options'>, natural: number[], width: number): number[] {
  const widths = [...natural];
  let over = widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1) - width;
  while (over > 0) {
    let widest = -1;
    widths.forEach((w, i) => {
      const floor = Math.max(3, length(table.header[i] ?? ''));
      if (table.options[i]?.free && w > floor && (widest < 0 || w > widths[widest]!)) widest = i;
    });
    if (widest < 0) return widths;
    widths[widest] = widths[widest]! - 1;
    over--;
  }
  return widths;
}

export interface RenderOptions {
  /** The stream's width in columns (Infinity: not a terminal, nothing is cut). */
  width: number;
  colour: boolean;
  /** Now, for relative times (ms since epoch). */
  now: number;
  /** Applied to every cell before it is measured: the terminal filter and the redactor. */
  safe: (text: string) => string;
}

/** The lines of `table`, fitted to `opts.width`. */
export function renderTable(table: Table, opts: RenderOptions): string[] {
  const shown = table.rows.map((r) => r.map((c, i) => opts.safe(table.options[i]?.time && c !== '-' ? relativeTime(c, opts.now) : c)));
  const natural = table.header.map((h, i) => Math.max(length(h), ...shown.map((r) => length(r[i] ?? ''))));
  const widths = fitWidths(table, natural, opts.width);
  const line = (cells: string[], style: (cell: string, i: number) => Style | undefined) =>
    cells
      .map((c, i) => {
        const text = cut(c, widths[i]!);
        const pad = ' '.repeat(Math.max(0, widths[i]! - length(text)));
        return i === cells.length - 1 ? paint(text, style(text, i), opts.colour) : paint(text, style(text, i), opts.colour) + pad;
      })
      .join('  ')
      .trimEnd();
  return [line(table.header, () => 'bold'), ...shown.map((r) => line(r, (c, i) => table.options[i]?.style?.(c)))];
}
