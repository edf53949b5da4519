/**
 * Splits a document into sections by its Markdown headings (ATX `#`..`######` and setext
 * underlines), ignoring heading-like lines inside fenced code. Each section keeps the path of
 * headings above it. A section longer than MAX_SECTION_CHARS is cut at paragraph boundaries into
 * parts, so a token budget can still take part of a long chapter.
 */

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

const ATX = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/;
const FENCE = /^ {0,3}(```|~~~)/;

export function splitMarkdown(content: string, documentName: string): SplitSection[] {
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
    const line = lines[i] ?? '';
    const f = FENCE.exec(line);
    if (f) fence = fence === null ? (f[1] ?? null) : fence === f[1] ? null : fence;
    if (fence === null && !f) {
      const atx = ATX.exec(line);
      if (atx && atx[2]) {
        open(atx[1]?.length ?? 1, atx[2], line);
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
