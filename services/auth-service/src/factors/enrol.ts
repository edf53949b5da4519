/**
 * TOTP enrolment, shared by the sign-in (a workspace requires a factor) and the account page: a
 * new secret waits, sealed, until a code computed from it is typed (docs/auth-service.md "Second
 * factor"); only then is it the person's factor, with RECOVERY_CODE_COUNT recovery codes shown once.
 */
import type { Accounts, User } from '@svc/accounts';
import { newTotpSecret, totpQrDataUrl, totpStep, totpUri } from './totp.ts';

/**
 * A new secret to confirm, and its QR code: each showing makes a fresh one, replacing any that
 * waits, so a secret someone else caused to be made (a stolen password, another browser) is never
 * the one a person scans and confirms.
 */
export async function enrolmentOf(accounts: Accounts, user: User): Promise<{ secret: string; qr: string }> {
  const secret = newTotpSecret();
  await accounts.factors.beginTotp(user.id, secret);
  return { secret, qr: await totpQrDataUrl(totpUri(secret, user.email)) };
}

/** Confirms the waiting secret with `code`: the recovery codes, or why not (a sentence for the page). */
export async function confirmEnrolment(
  accounts: Accounts,
  user: User,
  code: unknown,
  source: string,
): Promise<{ codes: string[] } | { error: string }> {
  const secret = await accounts.factors.pendingTotp(user.id);
  if (!secret) return { error: 'The setup expired. Scan the new code.' };
  const step = typeof code === 'string' ? await totpStep(secret, code) : null;
  if (step === null)
    return { error: 'That code is not right. Scan the new code below (remove the old entry from the app), then enter the code it shows.' };
  const codes = await accounts.factors.confirmTotp(user.id, step);
  if (codes === 'expired') return { error: 'The setup expired. Scan the new code.' };
  await accounts.audit.recordOwn(user, 'factor.enrolled', { source }, { factor: 'totp' });
  return { codes };
}
