/**
 * Lifetimes in human units, as people type them for key expiry and overlap periods ("30d", "12h",
 * "90m", "4w"; docs/contract.md "Credentials"). One parser for every place that takes one: the
 * operator CLI, the management API and the `svc` CLI.
 */
import { AccountError } from './errors.ts';

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 } as const;
const DURATION = /^\s*(\d{1,7})\s*([smhdw])\s*$/;

/** Longest lifetime accepted: about ten years. */
const MAX_DURATION_SECONDS = 3650 * 86_400;

/**
 * Seconds in `text`: a whole number and a unit (s, m, h, d, w), or a bare number of seconds.
 * Throws AccountError('invalid') with the accepted forms for anything else, zero, or past the maximum.
 */
export function parseDuration(text: string, what = 'duration'): number {
  const match = DURATION.exec(text);
  const seconds = match
    ? Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS]
    : /^\s*\d{1,10}\s*$/.test(text)
      ? Number(text)
      : NaN;
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_DURATION_SECONDS) {
    throw new AccountError('invalid', `${what} "${text}" must be a positive number with a unit, e.g. 90m, 12h, 30d or 4w (at most 3650d)`);
  }
  return seconds;
}
