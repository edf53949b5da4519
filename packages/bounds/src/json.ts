/**
 * The one JSON reader of both services' request bodies (docs/security.md "Bounds"). JSON.parse
 * itself copes with any nesting, but whatever walks the result afterwards (a serializer, a schema
 * validator, a form encoder) recurses, and a 9 KB body of a few thousand brackets overflowed the
 * stack of the OAuth body reader and stopped the process. So the text is scanned first, in one
 * linear pass without allocation, and refused before parsing when it nests deeper or holds more
 * values than the bounds allow; only then does the native parser read it.
 */

/** Bounds of one JSON body. */
export interface JsonBounds {
  /** Arrays and objects nested inside each other, the outermost counting as 1. */
  maxDepth: number;
  /** Array elements and object members of the whole body, counted together. */
  maxValues: number;
}

/** docs/security.md "Bounds": a tool's arguments or an OAuth request need far less. */
export const JSON_BOUNDS: JsonBounds = { maxDepth: 64, maxValues: 10_000 };

/** Which bound a body broke. */
export type JsonBound = 'depth' | 'values';

/** The body is well-formed enough to scan but breaks a bound; `message` names the bound and its value. */
export class JsonBoundsError extends Error {
  override name = 'JsonBoundsError';
  readonly bound: JsonBound;
  readonly limit: number;

  constructor(bound: JsonBound, limit: number) {
    super(
      bound === 'depth'
        ? `the JSON body is nested more than ${limit} levels deep`
        : `the JSON body holds more than ${limit} values (array elements and object members together)`,
    );
    this.bound = bound;
    this.limit = limit;
  }
}

/** The body is not JSON; `message` is the parser's description of where. */
export class JsonSyntaxError extends Error {
  override name = 'JsonSyntaxError';
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/** The first bound `text` breaks, or null (jsonValues). */
export function jsonBoundBroken(text: string, bounds: JsonBounds = JSON_BOUNDS): JsonBoundsError | null {
  const counted = jsonValues(text, bounds);
  return typeof counted === 'number' ? null : counted;
}

/**
 * The values `text` holds, or the first bound it breaks. Counts outside strings only; a comma or
 * an opening bracket counts as one value, which is the number of elements and members to within
 * one per container. Malformed text is left for the parser to name.
 */
export function jsonValues(text: string, bounds: JsonBounds = JSON_BOUNDS): number | JsonBoundsError {
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > bounds.maxDepth) return new JsonBoundsError('depth', bounds.maxDepth);
      if (++values > bounds.maxValues) return new JsonBoundsError('values', bounds.maxValues);
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
    else if (c === COMMA && ++values > bounds.maxValues) return new JsonBoundsError('values', bounds.maxValues);
  }
  return values;
}

/** `text` parsed, or JsonBoundsError / JsonSyntaxError: the only way request bodies become values. */
export function parseJson(text: string, bounds: JsonBounds = JSON_BOUNDS): unknown {
  const broken = jsonBoundBroken(text, bounds);
  if (broken) throw broken;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new JsonSyntaxError(err instanceof Error ? err.message : 'unreadable');
  }
}
