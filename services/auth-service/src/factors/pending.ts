/**
 * A sign-in whose password was right and that waits for its second factor, or for the enrolment
 * of one (docs/auth-service.md "Second factor"). No session exists until the factor is given: a
 * random cookie names the waiting sign-in, Redis holds it under the cookie's SHA-256 for
 * SECOND_FACTOR_WAIT_SECONDS, and it is deleted when the session starts.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Redis } from '@svc/accounts';
import { readCookie } from '../http/web-session.ts';
import { OK } from '../store/redis-keys.ts';

/** How long a sign-in waits for its second factor (or its enrolment) after the password. */
export const SECOND_FACTOR_WAIT_SECONDS = 600;
const COOKIE = 'svc_factor';

export type PendingStage = 'verify' | 'enrol';
export interface PendingSignIn {
  userId: string;
  returnTo: string;
  stage: PendingStage;
  /** A single sign-on through this workspace's provider (docs/auth-service.md "Single sign-on and the second factor"); none for a password. */
  via?: string;
  /** The session's lifetime once the factor is given, when shorter than a password sign-in's (an SSO session's). */
  sessionSeconds?: number;
}

const keyOf = (req: Request): string | null => {
  const id = readCookie(req, COOKIE);
  return id && /^[A-Za-z0-9_-]{43}$/.test(id) ? OK.factorPending(createHash('sha256').update(id).digest('hex')) : null;
};

export function pendingSignIns(deps: { redis: Redis; secure: boolean }) {
  const cookie = { httpOnly: true, sameSite: 'lax' as const, secure: deps.secure, path: '/' };
  return {
    async start(res: Response, p: PendingSignIn): Promise<void> {
      const id = randomBytes(32).toString('base64url');
      const key = OK.factorPending(createHash('sha256').update(id).digest('hex'));
      await deps.redis
        .multi()
        .hset(key, {
          userId: p.userId,
          returnTo: p.returnTo,
          stage: p.stage,
          ...(p.via !== undefined ? { via: p.via } : {}),
          ...(p.sessionSeconds !== undefined ? { sessionSeconds: String(p.sessionSeconds) } : {}),
        })
        .expire(key, SECOND_FACTOR_WAIT_SECONDS)
        .exec();
      res.cookie(COOKIE, id, { ...cookie, maxAge: SECOND_FACTOR_WAIT_SECONDS * 1000 });
    },
    async get(req: Request): Promise<PendingSignIn | null> {
      const key = keyOf(req);
      if (!key) return null;
      const h = await deps.redis.hgetall(key);
      if (!h['userId'] || (h['stage'] !== 'verify' && h['stage'] !== 'enrol')) return null;
      const sessionSeconds = Number(h['sessionSeconds']);
      return {
        userId: h['userId'],
        returnTo: h['returnTo'] ?? '/',
        stage: h['stage'],
        ...(h['via'] ? { via: h['via'] } : {}),
        ...(sessionSeconds > 0 ? { sessionSeconds } : {}),
      };
    },
    /** Ends the waiting sign-in: true for the one request that ended it (two tabs cannot both finish it). */
    async finish(req: Request, res: Response): Promise<boolean> {
      const key = keyOf(req);
      res.clearCookie(COOKIE, cookie);
      return key ? (await deps.redis.del(key)) === 1 : false;
    },
  };
}
