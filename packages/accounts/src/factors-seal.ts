/**
 * TOTP secrets are kept sealed (docs/auth-service.md "Second factor"): AES-256-GCM under a key
 * derived from KEY_PEPPER by HKDF-SHA-256 (RFC 5869), the person's id as associated data, so a
 * sealed secret read from Redis, or moved to another person's record, opens for nobody.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const INFO = 'svc totp secret v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const keyOf = (pepper: string, info: string) => Buffer.from(hkdfSync('sha256', pepper, '', info, 32));

/**
 * `secret` sealed for `userId`: base64url(iv | tag | ciphertext). `info` names what the secret is
 * (HKDF's info, RFC 5869 §3.2), so a secret of one kind never opens as another; default a TOTP secret.
 */
export function sealValue(pepper: string, userId: string, secret: string, info = INFO): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(pepper, info), iv);
  cipher.setAAD(Buffer.from(userId));
  const text = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), text]).toString('base64url');
}

/** The secret sealed for `userId`, or null when sealed for another, under another pepper, or altered. */
export function unsealValue(pepper: string, userId: string, sealed: string, info = INFO): string | null {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(pepper, info), raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(userId));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
