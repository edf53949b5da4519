/**
 * Passkeys through @simplewebauthn/server (docs/auth-service.md "Passkeys"; W3C WebAuthn Level 3):
 * the options a page hands to the browser, and the checks of what the authenticator answers. The
 * relying party is the auth host: its RP ID is AUTH_URL's host name, its origin AUTH_URL's origin.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Passkey, User } from '@svc/accounts';

const RP_NAME = 'svc';

export interface RelyingParty {
  rpID: string;
  origin: string;
}

export const relyingPartyOf = (authUrl: string): RelyingParty => ({ rpID: new URL(authUrl).hostname, origin: new URL(authUrl).origin });

const asTransports = (t: string[]) => t as AuthenticatorTransportFuture[];

/** Options for a new passkey: a discoverable credential (it can sign in without a password). */
export async function registrationOptions(rp: RelyingParty, user: User, existing: Passkey[]) {
  return generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: rp.rpID,
    userName: user.email,
    userID: new TextEncoder().encode(user.id),
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.id, transports: asTransports(p.transports) })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
}

/** The new passkey when the attestation answers `challenge` for this RP, else null. */
export async function checkRegistration(
  rp: RelyingParty,
  response: RegistrationResponseJSON,
  challenge: string,
): Promise<Omit<Passkey, 'createdAt'> | null> {
  const r = await verifyRegistrationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.rpID,
    requireUserVerification: false,
  });
  if (!r.verified) return null;
  const c = r.registrationInfo.credential;
  return { id: c.id, publicKey: Buffer.from(c.publicKey).toString('base64url'), counter: c.counter, transports: c.transports ?? [] };
}

/**
 * Options for an assertion: of the person's passkeys (a second factor), or of any discoverable
 * one (passwordless, `passkeys` empty), which must then verify the person (PIN, biometrics).
 */
export async function authenticationOptions(rp: RelyingParty, passkeys: Passkey[] | null, challenge?: Uint8Array<ArrayBuffer>) {
  return generateAuthenticationOptions({
    rpID: rp.rpID,
    // A challenge of our own binds the assertion to what it approves (an approval's call, docs/approvals.md).
    ...(challenge ? { challenge } : {}),
    userVerification: passkeys ? 'preferred' : 'required',
    ...(passkeys ? { allowCredentials: passkeys.map((p) => ({ id: p.id, transports: asTransports(p.transports) })) } : {}),
  });
}

/** The assertion's new counter when it answers `challenge` with `passkey`, else null. */
export async function checkAssertion(
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  challenge: string,
  passkey: Passkey,
  requireUserVerification: boolean,
): Promise<number | null> {
  const r = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.rpID,
    credential: {
      id: passkey.id,
      publicKey: Buffer.from(passkey.publicKey, 'base64url'),
      counter: passkey.counter,
      transports: asTransports(passkey.transports),
    },
    requireUserVerification,
  });
  return r.verified ? r.authenticationInfo.newCounter : null;
}

/** The person a discoverable passkey names (its user handle is the user id given at registration). */
export const userOfHandle = (handle: string | undefined): string | null =>
  handle && /^[A-Za-z0-9_-]{1,200}$/.test(handle) ? Buffer.from(handle, 'base64url').toString('utf8') : null;
