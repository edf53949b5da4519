/** A roll's or rotation's overlap (docs/management.md "Operations"): how long the old key keeps working. */
import { parseDuration } from '@svc/accounts';
import { ManagementError } from './types.ts';

/** The overlap in seconds: `0m` ends the old key at once; anything else is a duration, else a 400 naming `overlap`. */
export function overlapSecondsOf(text: string): number {
  if (text === '0m') return 0;
  try {
    return parseDuration(text, 'Overlap');
  } catch (err) {
    throw new ManagementError(400, (err as Error).message, 'overlap');
  }
}
