/**
 * TOTP enrolment, shared by the sign-in (a workspace requires a factor) and the account page: a
 * new secret waits, sealed, until a code computed from it is typed (docs/auth-service.md "Second
 * factor"); only then is it the person's factor, with RECOVERY_CODE_COUNT recovery codes shown once.
 */
import { createHash } from 'node:crypto';
import type { Accounts, User } from '@svc/accounts';
import { newTotpSecret, totpQrDataUrl, totpStep, totpUri } from './totp.ts';

/**
 * What the enrolment form carries back (its `shown` field) to name the secret it showed: a hash
 * of it, bound to the person. The page itself shows the secret, so the hash tells nothing more.
 */
const fingerprintOf = (user: User, secret: string) => createHash('sha256').update(`totp-shown|${user.id}|${secret}`).digest('base64url');

/**
 * The secret to show, and its QR code. A first showing makes a fresh one, replacing any that
 * waits, so a secret someone else caused to be made (a stolen password, another browser) is never
 * the one a person scans. A form shown again after a mistyped code (`shown`, the fingerprint it
 * carried) keeps the waiting secret when it is the one that form showed: the person retries with
 * the entry already in their app, without scanning again (`kept`).
 */
export async function enrolmentOf(
  accounts: Accounts,
  user: User,
  shown?: unknown,
): Promise<{ secret: string; qr: string; shown: string; kept: boolean }> {
  const waiting = typeof shown === 'string' && shown ? await accounts.factors.pendingTotp(user.id) : null;
  const kept = waiting !== null && fingerprintOf(user, waiting) === shown;
  const secret = kept ? waiting : newTotpSecret();
  if (!kept) await accounts.factors.beginTotp(user.id, secret);
  return { secret, qr: await totpQrDataUrl(totpUri(secret, user.email)), shown: fingerprintOf(user, secret), kept };
}

/** Why a confirming code was refused: not the code of the waiting secret, or no secret waits any more. */
export type EnrolRefusal = 'wrong' | 'expired';

/** The sentence for a refusal, knowing whether the form shows the same secret again. */
export function enrolRefusalText(refusal: EnrolRefusal, kept: boolean): string {
  if (refusal === 'wrong' && kept)
    return 'That code is not right. The secret is the same, so there is nothing to scan again: enter the code your app shows now for svc (it changes every 30 seconds).';
  if (refusal === 'wrong')
    return 'That code is not right. Scan the new code below (remove the old entry from the app), then enter the code it shows.';
  return 'The setup expired. Scan the new code below (remove the old entry from the app).';
}

/** Confirms the waiting secret with `code`: the recovery codes, or why not. */
export async function confirmEnrolment(
  accounts: Accounts,
  user: User,
  code: unknown,
  source: string,
): Promise<{ codes: string[] } | { refused: EnrolRefusal }> {
  const secret = await accounts.factors.pendingTotp(user.id);
  if (!secret) return { refused: 'expired' };
  const step = typeof code === 'string' ? await totpStep(secret, code) : null;
  if (step === null) return { refused: 'wrong' };
  const codes = await accounts.factors.confirmTotp(user.id, step);
  if (codes === 'expired') return { refused: 'expired' };
  await accounts.audit.recordOwn(user, 'factor.enrolled', { source }, { factor: 'totp' });
  return { codes };
}
