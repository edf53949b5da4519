/**
 * TOTP enrolment, shared by the sign-in (a workspace requires a factor) and the account page: a
 * new secret waits, sealed, until a code computed from it is typed (docs/auth-service.md "Second
 * factor"); only then is it the person's factor, with RECOVERY_CODE_COUNT recovery codes shown once.
 */
import type { Accounts, User } from '@svc/accounts';
import { newTotpSecret, totpQrDataUrl, totpStep, totpUri } from './totp.ts';

/** The secret waiting for confirmation (a new one when none waits), and its QR code. */
export async function enrolmentOf(accounts: Accounts, user: User): Promise<{ secret: string; qr: string }> {
  let secret = await accounts.factors.pendingTotp(user.id);
  if (!secret) {
    secret = newTotpSecret();
    await accounts.factors.beginTotp(user.id, secret);
  }
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
  if (step === null) return { error: 'That code is not right. Enter the code the app shows now.' };
  const codes = await accounts.factors.confirmTotp(user.id, step);
  if (codes === 'expired') return { error: 'The setup expired. Scan the new code.' };
  await accounts.audit.recordOwn(user, 'factor.enrolled', { source }, { factor: 'totp' });
  return { codes };
}
