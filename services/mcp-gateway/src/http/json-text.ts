/**
 * Answers that repeat, serialized once (docs/gateway-pipeline.md "Answers serialized once").
 * tools/list, server/discover and svc_help give everyone who asks in the same way the same object;
 * turning it into JSON is most of what such a call costs. Such an object is marked with keepText:
 * it is frozen, and its JSON text is made at its first answer and kept beside it.
 */
const texts = new WeakMap<object, string | null>();
/** The UTF-8 length of each kept text, counted once beside it. */
const lengths = new WeakMap<object, number>();

/**
 * JSON text and its length in UTF-8 bytes when that is known without encoding the text (a kept
 * text's is counted once): the answer's Content-Length then costs no pass over the text, and an
 * envelope joined around it is flattened once, when it is written (docs/benchmarks.md).
 */
export interface SizedText {
  text: string;
  bytes: number | null;
}

/** Marks `value` as answered again unchanged: frozen, its JSON text kept from its first use. */
export function keepText<T extends object>(value: T): Readonly<T> {
  texts.set(value, null);
  return Object.freeze(value);
}

/** JSON.stringify(value); the kept text when `value` was marked with keepText. */
export function jsonText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const kept = texts.get(value);
  if (kept) return kept;
  const text = JSON.stringify(value);
  if (kept === null) {
    texts.set(value, text);
    lengths.set(value, Buffer.byteLength(text));
  }
  return text;
}

/** jsonText(value) with its UTF-8 length when `value` is kept (keepText). */
export function sizedJsonText(value: unknown): SizedText {
  const text = jsonText(value);
  return { text, bytes: typeof value === 'object' && value !== null ? (lengths.get(value) ?? null) : null };
}

/**
 * The JSON text of `{...value, ...members}`, made by joining the members' text to value's (kept)
 * text instead of serializing a merged copy; null when a key of `members` is also in `value`, for
 * the caller to merge the objects its own way. `membersText` is JSON.stringify(members) without its
 * braces, `membersBytes` its UTF-8 length.
 */
export function jsonTextWith(
  value: Record<string, unknown>,
  members: Record<string, unknown>,
  membersText: string,
  membersBytes: number,
): SizedText | null {
  for (const key in members) if (key in value) return null;
  const own = sizedJsonText(value);
  // '{}' becomes the members in braces; any other object gains a comma and them before its last brace.
  if (own.text === '{}') return { text: `{${membersText}}`, bytes: membersBytes + 2 };
  return { text: `${own.text.slice(0, -1)},${membersText}}`, bytes: own.bytes === null ? null : own.bytes + 1 + membersBytes };
}
