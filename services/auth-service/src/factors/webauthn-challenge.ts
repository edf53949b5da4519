/**
 * WebAuthn challenges (docs/auth-service.md "Passkeys"): each is random (made by
 * @simplewebauthn/server), kept in Redis under the SHA-256 of a random `svc_webauthn` cookie of
 * this browser, with its purpose and the person it was made for, and taken once (GETDEL): an
 * assertion or attestation answers one challenge, once, from the browser it was given to.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Redis } from '@svc/accounts';
import { readCookie } from '../http/web-session.ts';
import { OK } from '../store/redis-keys.ts';

/** How long a challenge waits for the passkey's answer. */
export const WEBAUTHN_CHALLENGE_TTL_SECONDS = 300;
const COOKIE = 'svc_webauthn';

export type ChallengePurpose = 'register' | 'factor' | 'step-up' | 'passwordless' | 'approval';
export interface Challenge {
  challenge: string;
  purpose: ChallengePurpose;
  /** The person it was made for; empty for a passwordless sign-in (the passkey names the person). */
  userId: string;
  /** What the challenge was made of, when it binds the assertion to one thing (an approval's call and nonce). */
  bound?: string;
}

const digest = (id: string) => createHash('sha256').update(id).digest('hex');

export function webauthnChallenges(deps: { redis: Redis; secure: boolean }) {
  const cookie = { httpOnly: true, sameSite: 'strict' as const, secure: deps.secure, path: '/' };
  return {
    /** Keeps `c` for this browser (a new cookie each time: one challenge waits per page shown). */
    async keep(res: Response, c: Challenge): Promise<void> {
      const id = randomBytes(32).toString('base64url');
      await deps.redis.set(OK.webauthnChallenge(digest(id)), JSON.stringify(c), 'EX', WEBAUTHN_CHALLENGE_TTL_SECONDS);
      res.cookie(COOKIE, id, { ...cookie, maxAge: WEBAUTHN_CHALLENGE_TTL_SECONDS * 1000 });
    },
    /** Takes this browser's challenge once, when it is for `purpose` and `userId`; else null. */
    async take(req: Request, res: Response, purpose: ChallengePurpose, userId: string): Promise<Challenge | null> {
      const id = readCookie(req, COOKIE);
      res.clearCookie(COOKIE, cookie);
      if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
      const raw = await deps.redis.getdel(OK.webauthnChallenge(digest(id)));
      const c = raw ? (JSON.parse(raw) as Challenge) : null;
      return c && c.purpose === purpose && c.userId === userId ? c : null;
    },
  };
}
