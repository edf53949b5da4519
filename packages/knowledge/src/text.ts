/**
 * Tokenising shared by BM25, the local embedder, passages and memory recall: lower-cased
 * Unicode words, English stopwords dropped, and a light suffix-stripping stemmer so "rotated",
 * "rotates" and "rotation" meet on one term. It is deliberately small and predictable; it is not
 * a linguistic analyser.
 */

const STOPWORDS = new Set(
  (
    'a an and are as at be been being but by can could did do does doing for from had has have having he her here hers him his how i if in into is it its ' +
    'me my no nor not of off on once only or other our ours out over own same she should so some such than that the their theirs them then there these ' +
    'they this those through to too under until up very was we were what when where which while who whom why will with would you your yours ' +
    'about above after again against all am any because before below between both down during each few further more most just also may must shall'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}]+/gu;

/** Lower-cased words of a text, in order, stopwords included. */
export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

export function isStopword(word: string): boolean {
  return STOPWORDS.has(word);
}

// [suffix, replacement, shortest stem kept], longest first: "rotation" -> "rotat" = "rotated",
// "authorization" -> "authoriz" = "authorize".
const SUFFIXES: ReadonlyArray<readonly [string, string, number]> = [
  ['izations', 'iz', 3],
  ['ization', 'iz', 3],
  ['ational', 'at', 3],
  ['fulness', '', 3],
  ['iveness', '', 3],
  ['ations', 'at', 4],
  ['ements', '', 3],
  ['ation', 'at', 4],
  ['ments', '', 3],
  ['ities', '', 3],
  ['ement', '', 3],
  ['ingly', '', 3],
  ['ously', '', 3],
  ['ness', '', 3],
  ['ment', '', 3],
  ['ings', '', 3],
  ['able', '', 3],
  ['ible', '', 3],
  ['ally', '', 3],
  ['ity', '', 3],
  ['ies', 'y', 2],
  ['ing', '', 3],
  ['ion', '', 3],
  ['ive', '', 3],
  ['ers', '', 3],
  ['ed', '', 3],
  ['es', '', 3],
  ['er', '', 3],
  ['ly', '', 3],
  ['al', '', 3],
  ['s', '', 3],
  ['e', '', 3],
];

/** Strips one common English suffix (and a final doubled consonant) from a lower-cased word. */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  for (const [suffix, replacement, min] of SUFFIXES) {
    if (word.endsWith(suffix) && word.length - suffix.length >= min) {
      let s = word.slice(0, -suffix.length);
      if (replacement === '' && s.length > 3 && s.at(-1) === s.at(-2) && !'lsz'.includes(s.at(-1) ?? '')) s = s.slice(0, -1);
      return s + replacement;
    }
  }
  return word;
}

/** The index terms of a text: stemmed words without stopwords. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) if (!STOPWORDS.has(w)) out.push(stem(w));
  return out;
}

/**
 * Index terms plus adjacent-pair terms ("user_cod"): a section that says "user code" beats one
 * that says "user" and "code" apart. Pairs skip across removed stopwords, as a reader would.
 */
export function termsWithPairs(text: string): string[] {
  const ts = terms(text);
  const out = [...ts];
  for (let i = 1; i < ts.length; i++) out.push(`${ts[i - 1]}_${ts[i]}`);
  return out;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a (32-bit) over UTF-16 code units, continuing from `h`. */
function fnv1a(s: string, h = FNV_OFFSET): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

/** The code unit of "_", which joins a pair's two terms. */
const PAIR_JOIN = 0x5f;

/** The 32-bit hash the search index knows a term by (FNV-1a; docs/knowledge-tools.md "Index memory"). */
export function termHash(term: string): number {
  return fnv1a(term);
}

/**
 * The hashes of termsWithPairs(text), without building the pair strings: a pair's hash is
 * termHash(`${a}_${b}`), computed by continuing a's hash over "_" and b.
 */
export function termHashes(text: string): number[] {
  const ts = terms(text);
  const out = ts.map((t) => fnv1a(t));
  for (let i = 1; i < ts.length; i++) out.push(fnv1a(ts[i] as string, Math.imul((out[i - 1] as number) ^ PAIR_JOIN, FNV_PRIME)));
  return out;
}

/** Token estimate used for budgets: characters / 4, rounded up (a common rule of thumb for English with BPE tokenisers). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
