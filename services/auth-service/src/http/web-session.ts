/**
 * The browser session of our own pages (sign-in, sign-up, consent): an opaque cookie whose
 * SHA-256 names a Redis hash. Cookies are HttpOnly, SameSite=Lax, and Secure when the auth host
 * is served over TLS (docs/auth-service.md "Sign-in protections").
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Redis } from '@svc/accounts';
import { OK } from '../provider/redis-keys.ts';

const SESSION_COOKIE = 'svc_session';
const CSRF_COOKIE = 'svc_csrf';
const SESSION_TTL_SECONDS = 14 * 86_400;

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Reads one cookie from the request's Cookie header (no parser dependency needed). A value that is
 * not valid percent-encoding was never set by us (our values are base64url): it is treated as
 * absent, as a missing cookie is, rather than failing the request; the browser cannot repair its
 * cookie jar, so refusing every page would lock it out.
 */
export function readCookie(req: { headers: { cookie?: string | undefined } }, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) {
      try {
        return decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export interface WebSessions {
  userOf(req: Request): Promise<string | null>;
  start(res: Response, userId: string): Promise<void>;
  end(req: Request, res: Response): Promise<void>;
  /** The CSRF token of this browser (double-submit cookie), set when absent. */
  csrfToken(req: Request, res: Response): string;
  /** True when the form's `csrf` field matches the browser's CSRF cookie. */
  csrfValid(req: Request): boolean;
}

export function createWebSessions(deps: { redis: Redis; secure: boolean }): WebSessions {
  const cookie = { httpOnly: true, sameSite: 'lax' as const, secure: deps.secure, path: '/' };
  return {
    async userOf(req) {
      const id = readCookie(req, SESSION_COOKIE);
      if (!id || id.length > 100) return null;
      return (await deps.redis.hget(OK.webSession(sha(id)), 'userId')) ?? null;
    },
    async start(res, userId) {
      const id = randomBytes(32).toString('base64url');
      const key = OK.webSession(sha(id));
      await deps.redis.hset(key, { userId, createdAt: String(Date.now()) });
      await deps.redis.expire(key, SESSION_TTL_SECONDS);
      res.cookie(SESSION_COOKIE, id, { ...cookie, maxAge: SESSION_TTL_SECONDS * 1000 });
    },
    async end(req, res) {
      const id = readCookie(req, SESSION_COOKIE);
      if (id) await deps.redis.del(OK.webSession(sha(id)));
      res.clearCookie(SESSION_COOKIE, cookie);
    },
    csrfToken(req, res) {
      let token = readCookie(req, CSRF_COOKIE);
      if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) {
        token = randomBytes(32).toString('base64url');
        res.cookie(CSRF_COOKIE, token, cookie);
        // The page being rendered in this same response must carry the new value.
        (req.headers as Record<string, string>)['cookie'] = `${req.headers.cookie ?? ''}; ${CSRF_COOKIE}=${token}`;
      }
      return token;
    },
    csrfValid(req) {
      const expected = readCookie(req, CSRF_COOKIE);
      const given = (req.body as Record<string, unknown> | undefined)?.['csrf'];
      if (!expected || typeof given !== 'string' || given.length !== expected.length) return false;
      return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
    },
  };
}

/** A hidden form field carrying the CSRF token. */
export function csrfField(token: string): string {
  return `<input type="hidden" name="csrf" value="${token}">`;
}
