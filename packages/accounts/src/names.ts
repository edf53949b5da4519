/**
 * What a name may hold (docs/security.md "Names", docs/management.md "Names"): one definition for
 * every name a person or client chooses (keys, projects, service accounts, OAuth client names).
 * Names are shown in terminals, pages, mails and audit entries, so a name may not carry
 * characters that act instead of showing (C0 and C1 controls: ESC, CR, LF, TAB, ...), reorder the
 * text around them (bidi controls, Unicode UAX #9), or cannot be seen (zero-width, no-break and
 * other unusual spaces, joiners, fillers, variation selectors): a name with them could pass for
 * another one.
 */

/** C0 controls, DEL, C1 controls. */
// eslint-disable-next-line no-control-regex -- finding control characters is what it is for
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
/**
 * Invisible or look-alike space and format characters: NBSP, soft hyphen, combining grapheme
 * joiner, Hangul and Khmer fillers, Mongolian selectors, zero-width and bidi marks, line and
 * paragraph separators, narrow NBSP, word joiner and invisible operators, braille blank,
 * ideographic space, variation selectors, BOM, halfwidth filler, tag characters.
 */
const INVISIBLE =
  // eslint-disable-next-line no-misleading-character-class -- single code points, listed to be refused
  /[\u00a0\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u2800\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\u{e0000}-\u{e007f}]/u;

/** True when `text` holds a control, invisible or direction-changing character. */
export function hasHiddenCharacters(text: string): boolean {
  return CONTROL.test(text) || INVISIBLE.test(text);
}

/** `text` without its control, invisible and direction-changing characters, for showing. */
export function withoutHiddenCharacters(text: string): string {
  return [...text].filter((c) => !CONTROL.test(c) && !INVISIBLE.test(c)).join('');
}

/** Why `name` is refused, or null: empty, too long, or holding a control or invisible character. */
export function nameProblem(what: string, name: unknown, max: number): string | null {
  if (typeof name !== 'string' || name.trim() === '' || [...name].length > max) return `Give the ${what} a name of 1 to ${max} characters.`;
  if (CONTROL.test(name)) return `The ${what} name may not contain control characters (such as line breaks, tabs or escape sequences).`;
  if (INVISIBLE.test(name))
    return `The ${what} name may not contain invisible or direction-changing characters (such as no-break or zero-width spaces).`;
  return null;
}

/** Latin look-alikes of Cyrillic and Greek letters, for comparing names as a reader sees them. */
const CONFUSABLES: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  α: 'a',
  β: 'b',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ϲ: 'c',
  '0': 'o',
  '1': 'l',
  '|': 'l',
  ı: 'i',
};

/**
 * A name as a reader would take it, for telling look-alikes apart (Unicode TR #39's skeleton,
 * simplified): NFKC (full-width and styled letters become plain), combining marks dropped, lower
 * case, Cyrillic and Greek look-alikes mapped to Latin, `i`/`l` and digits that pass for letters
 * merged, every run of spaces, dashes and dots one space.
 */
export function nameSkeleton(name: string): string {
  const plain = name.normalize('NFKC').normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  return [...plain]
    .map((c) => CONFUSABLES[c] ?? c)
    .join('')
    .replace(/i/g, 'l')
    .replace(/rn/g, 'm')
    .replace(/[\s\-_.·‐-―]+/gu, ' ')
    .trim();
}
