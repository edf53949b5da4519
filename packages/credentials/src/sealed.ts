/**
 * A value sealed under a secret: AES-256-GCM with a key derived from the secret by HKDF-SHA-256
 * (RFC 5869), `info` telling the uses apart. The auth-service seals the token pair a refresh token
 * was exchanged for under that token (docs/security.md "Refresh tokens"); single sign-on seals a
 * workspace's client secret under COOKIE_KEYS (docs/auth-service.md "Single sign-on").
 */
import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';
import { pooledRandomBytes } from './random-pool.ts';

const INFO = 'svc refresh replay v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

function keyOf(refreshToken: string, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', refreshToken, '', info, 32));
}

/**
 * `value` as JSON, encrypted and authenticated under `refreshToken`: base64url(iv | tag | ciphertext).
 * `info` separates the uses of one secret (HKDF's info, RFC 5869 §3.2).
 */
export function seal(refreshToken: string, value: unknown, info = INFO): string {
  const iv = pooledRandomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(refreshToken, info), iv);
  const text = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), text]).toString('base64url');
}

/** The value sealed under `refreshToken`, or null when it was sealed under another or altered. */
export function unseal(refreshToken: string, sealed: string, info = INFO): unknown {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(refreshToken, info), raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    return JSON.parse(text.toString('utf8')) as unknown;
  } catch {
    return null;
  }
}
