/**
 * Splits a document into sections by its Markdown headings (ATX `#`..`######` and setext
 * underlines), ignoring heading-like lines inside fenced code. Each section keeps the path of
 * headings above it. A section longer than MAX_SECTION_CHARS is cut at paragraph boundaries into
 * parts, so a token budget can still take part of a long chapter.
 *
 * Every line is read by hand or by patterns without nested or adjacent overlapping quantifiers, so
 * the cost is linear in the input: documents come from any EDITOR, and a pattern that backtracks
 * (an ATX pattern of the form `(.*?)[ \t]*#*[ \t]*$` is cubic on a heading of many spaces) would
 * stall the gateway for every tenant (docs/security.md "Denial of service").
 *
 * Splitting 200,000 characters takes 4-8 ms: an upload splits in time slices
 * (`splitMarkdownInSlices`, docs/knowledge-tools.md "Event-loop budget"), stopping every
 * LINES_PER_CHECK lines and every section to let the slicer yield.
 */
import { runAll, runInSlices, type Slicer } from './slicer.ts';

export interface SplitSection {
  /** Heading of the section; the document name for text before the first heading. */
  heading: string;
  /** Headings from the top level down to this one, e.g. ["Tokens", "Refresh"]. */
  path: string[];
  /** Markdown heading level (1..6); 0 for text before the first heading. */
  level: number;
  /** The section's text, its heading line included. */
  text: string;
}

export const MAX_SECTION_CHARS = 3000;

const FENCE = /^ {0,3}(```|~~~)/;
/** Lines read between two checks of the slice's time (a few hundred microseconds of work). */
const LINES_PER_CHECK = 512;

/** The sections of `content`, in one go (a document of a few thousand characters). */
export function splitMarkdown(content: string, documentName: string): SplitSection[] {
  return runAll(splitting(content, documentName));
}

/** The sections of `content`, giving the event loop back through `s` between pieces of the work. */
export function splitMarkdownInSlices(content: string, documentName: string, s: Slicer): Promise<SplitSection[]> {
  return runInSlices(splitting(content, documentName), s);
}

/** The splitter: yields where it may stop for a while, returns the sections. */
function* splitting(content: string, documentName: string): Generator<void, SplitSection[]> {
  const lines = content.replace(/\r\n?/g, '\n').split('\n');
  const sections: { heading: string; path: string[]; level: number; lines: string[] }[] = [];
  const stack: { level: number; heading: string }[] = [];
  let current = { heading: documentName, path: [] as string[], level: 0, lines: [] as string[] };
  let fence: string | null = null;

  const open = (level: number, heading: string, headingLine: string) => {
    sections.push(current);
    while (stack.length && (stack.at(-1)?.level ?? 0) >= level) stack.pop();
    stack.push({ level, heading });
    current = { heading, path: stack.map((s) => s.heading), level, lines: [headingLine] };
  };

  for (let i = 0; i < lines.length; i++) {
    if (i % LINES_PER_CHECK === 0) yield;
    const line = lines[i] ?? '';
    const f = FENCE.exec(line);
    if (f) fence = fence === null ? (f[1] ?? null) : fence === f[1] ? null : fence;
    if (fence === null && !f) {
      const atx = atxHeading(line);
      if (atx) {
        open(atx.level, atx.heading, line);
        continue;
      }
      // Setext: a non-blank paragraph line followed by === (level 1) or --- (level 2).
      const next = lines[i + 1] ?? '';
      if (line.trim() && !current.lines.at(-1)?.trim() && /^ {0,3}(=+|-{2,})[ \t]*$/.test(next)) {
        open(next.trim().startsWith('=') ? 1 : 2, line.trim(), `${line}\n${next}`);
        i++;
        continue;
      }
    }
    current.lines.push(line);
  }
  sections.push(current);

  const out: SplitSection[] = [];
  for (const s of sections) {
    yield;
    const text = s.lines.join('\n').trim();
    // A heading with no body of its own (a chapter title over subsections) adds nothing to search:
    // its heading is already in its subsections' paths.
    const body = s.level === 0 ? text : s.lines.slice(1).join('\n').trim();
    if (!body || /^ {0,3}(=+|-{2,})$/.test(body)) continue;
    for (const [n, part] of chunk(text).entries())
      out.push({ heading: n === 0 ? s.heading : `${s.heading} (part ${n + 1})`, path: s.path, level: s.level, text: part });
  }
  return out;
}

const isBlank = (c: string | undefined) => c === ' ' || c === '\t';

/**
 * An ATX heading (CommonMark 0.31 §4.2): up to three spaces, one to six `#`, then a space or tab,
 * the heading text, and an optional closing run of `#` preceded by a space or tab. One pass over
 * the line; null when the line is not a heading or its text is empty.
 */
function atxHeading(line: string): { level: number; heading: string } | null {
  let i = 0;
  while (i < 3 && line[i] === ' ') i++;
  let level = 0;
  while (line[i + level] === '#') level++;
  if (level < 1 || level > 6 || !isBlank(line[i + level])) return null;
  let start = i + level;
  let end = line.length;
  while (start < end && isBlank(line[start])) start++;
  while (end > start && isBlank(line[end - 1])) end--;
  // The closing sequence counts only when a space or tab separates it from the text.
  let hashes = end;
  while (hashes > start && line[hashes - 1] === '#') hashes--;
  if (hashes < end && (hashes === start || isBlank(line[hashes - 1]))) {
    end = hashes;
    while (end > start && isBlank(line[end - 1])) end--;
  }
  const heading = line.slice(start, end);
  return heading ? { level, heading } : null;
}

/** Cuts text longer than MAX_SECTION_CHARS at blank lines (or hard, for one giant paragraph). */
function chunk(text: string): string[] {
  if (text.length <= MAX_SECTION_CHARS) return [text];
  const parts: string[] = [];
  let buf = '';
  for (const para of text.split(/\n{2,}/)) {
    const pieces = para.length > MAX_SECTION_CHARS ? (para.match(new RegExp(`[\\s\\S]{1,${MAX_SECTION_CHARS}}`, 'g')) ?? []) : [para];
    for (const piece of pieces) {
      if (buf && buf.length + 2 + piece.length > MAX_SECTION_CHARS) {
        parts.push(buf);
        buf = '';
      }
      buf = buf ? `${buf}\n\n${piece}` : piece;
    }
  }
  if (buf) parts.push(buf);
  return parts;
}
