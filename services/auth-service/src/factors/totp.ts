/**
 * TOTP (RFC 6238) through otplib: the secret, its otpauth:// URI and QR code for an authenticator
 * app, and the check of a typed code (docs/auth-service.md "Second factor").
 */
import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';

/** RFC 6238 §4.1 defaults, which every authenticator app reads: 30-second steps, 6 digits, SHA-1. */
const TOTP_PERIOD_SECONDS = 30;
/**
 * Codes of this many steps before or after the server's are accepted too (RFC 6238 §5.2 allows
 * "at most one time step" of transmission delay; a phone's clock drifts by as much).
 */
export const TOTP_DRIFT_STEPS = 1;
const ISSUER = 'svc';

export function newTotpSecret(): string {
  return generateSecret();
}

/** The otpauth:// URI an authenticator app reads (from the QR code or typed). */
export function totpUri(secret: string, email: string): string {
  return generateURI({ issuer: ISSUER, label: email, secret, period: TOTP_PERIOD_SECONDS });
}

/** The URI as a QR code: an SVG image as a data: URL (the page CSP allows data: images). */
export async function totpQrDataUrl(uri: string): Promise<string> {
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

/** The time step of `code` when it is right for `secret` (within the drift), else null. */
export async function totpStep(secret: string, code: string, now: number = Date.now()): Promise<number | null> {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const result = await verify({
    secret,
    token,
    period: TOTP_PERIOD_SECONDS,
    epoch: Math.floor(now / 1000),
    epochTolerance: TOTP_DRIFT_STEPS * TOTP_PERIOD_SECONDS,
  });
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}
