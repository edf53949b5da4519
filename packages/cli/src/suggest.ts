/**
 * "Did you mean": the nearest of the known words to one mistyped, by the optimal string alignment
 * distance (Damerau-Levenshtein with adjacent transpositions: `lgoin` is 1 from `login`), when it
 * is at most MAX_SUGGESTION_DISTANCE. Commands, subcommands and options all come from the command
 * table (commands.ts), so a suggestion is always something that runs.
 */

/** Further than this, a suggestion is a guess rather than a typo. */
const MAX_SUGGESTION_DISTANCE = 2;

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The known word nearest to `word` (case aside), or null when none is within MAX_SUGGESTION_DISTANCE. */
export function nearest(word: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = MAX_SUGGESTION_DISTANCE + 1;
  for (const candidate of known) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}
