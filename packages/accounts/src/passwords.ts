/**
 * The password policy and how passwords are kept (docs/contract.md "Accounts"): at least 12 and
 * at most 256 characters, not one of the ~49,000 common passwords of @zxcvbn-ts/language-common
 * (compared without case), no composition rules. Stored as bcrypt of the SHA-256 of the password
 * (base64), marked `sha256-bcrypt$`: bcrypt reads only 72 bytes, and pre-hashing lets every one of
 * the 256 characters count. Hashes from before (plain bcrypt) still verify.
 */
import { createHash } from 'node:crypto';
import bcrypt from 'bcrypt';
import { dictionary } from '@zxcvbn-ts/language-common';
import { AccountError } from './errors.ts';

export const MIN_PASSWORD = 12;
const MAX_PASSWORD = 256;
const PREHASHED = 'sha256-bcrypt$';
const COMMON = new Set(dictionary['passwords-common'].map((p) => p.toLowerCase()));

/** Throws AccountError('invalid') naming what is wrong with a new password. */
export function checkPassword(password: string): void {
  const length = [...password].length;
  if (length < MIN_PASSWORD) throw new AccountError('invalid', `the password must have at least ${MIN_PASSWORD} characters`);
  if (length > MAX_PASSWORD) throw new AccountError('invalid', `the password must have at most ${MAX_PASSWORD} characters`);
  if (COMMON.has(password.toLowerCase())) throw new AccountError('invalid', 'that password is one of the most common ones; choose another');
}

const prehash = (password: string) => createHash('sha256').update(password).digest('base64');

export function hashPassword(password: string, cost: number): Promise<string> {
  return bcrypt.hash(prehash(password), cost).then((h) => PREHASHED + h);
}

/** Whether `password` matches `stored` (either form); `stored` empty compares against a dummy hash. */
export function passwordMatches(password: string, stored: string): Promise<boolean> {
  if (stored.startsWith(PREHASHED)) return bcrypt.compare(prehash(password.slice(0, MAX_PASSWORD * 4)), stored.slice(PREHASHED.length));
  return bcrypt.compare(password.slice(0, 200), stored || DUMMY_HASH).then((ok) => ok && stored !== '');
}

const DUMMY_HASH = '$2b$10$CwTycUXWue0Thq9StjUM0uJ8.YW7lQ9l0Tt3bq5Qy5bY4.1T3xk5e';
