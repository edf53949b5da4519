/**
 * Times in tables as a person reads them, "3 minutes ago", "in 2 days" (docs/cli.md "What is
 * printed"); `--json` keeps the exact RFC 3339 time.
 */

/** Each unit, its length, and from when it is used: days up to 45 ("in 30 days" reads better than "in 4 weeks"). */
const UNITS: [Intl.RelativeTimeFormatUnit, number, number][] = [
  ['year', 365 * 86_400_000, 365 * 86_400_000],
  ['month', 30 * 86_400_000, 45 * 86_400_000],
  ['day', 86_400_000, 86_400_000],
  ['hour', 3_600_000, 3_600_000],
  ['minute', 60_000, 0],
];

const FORMAT = new Intl.RelativeTimeFormat('en', { numeric: 'always' });

/** `iso` relative to `now` (ms since epoch); a value that is not a time is returned as it is. */
export function relativeTime(iso: string, now: number): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const diff = at - now;
  const abs = Math.abs(diff);
  if (abs < 45_000) return diff < 0 ? 'just now' : 'in a moment';
  for (const [unit, ms, from] of UNITS) {
    // Rounded in the unit: 23 h 40 min reads "in 24 hours", 25 h "in 1 day".
    if (abs >= from) {
      const n = Math.max(1, Math.round(abs / ms));
      return FORMAT.format(diff < 0 ? -n : n, unit);
    }
  }
  return iso;
}
