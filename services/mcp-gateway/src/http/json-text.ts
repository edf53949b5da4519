/**
 * Answers that repeat, serialized once (docs/gateway-pipeline.md "Answers serialized once").
 * tools/list, server/discover and svc_help give everyone who asks in the same way the same object;
 * turning it into JSON is most of what such a call costs. Such an object is marked with keepText:
 * it is frozen, and its JSON text is made at its first answer and kept beside it.
 */
const texts = new WeakMap<object, string | null>();

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
  if (kept === null) texts.set(value, text);
  return text;
}

/**
 * The JSON text of `{...value, ...members}`, made by joining the members' text to value's (kept)
 * text instead of serializing a merged copy; null when a key of `members` is also in `value`, for
 * the caller to merge the objects its own way. `membersText` is JSON.stringify(members) without its
 * braces.
 */
export function jsonTextWith(value: Record<string, unknown>, members: Record<string, unknown>, membersText: string): string | null {
  for (const key in members) if (key in value) return null;
  const own = jsonText(value);
  return own === '{}' ? `{${membersText}}` : `${own.slice(0, -1)},${membersText}}`;
}
