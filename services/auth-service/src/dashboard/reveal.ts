/**
 * A new key's one reveal through post-redirect-get (docs/dashboard.md "A key is shown once"): the
 * POST that made the key seals it under this browser's session cookie and stores it for one read,
 * then answers 303 to a page that takes it with GETDEL. Reload, Back and Forward land on that page
 * again and find nothing: no second key is made, and the secret is not shown twice. Redis holds
 * only the sealed value under the SHA-256 of the cookie, so neither a reader of Redis nor another
 * browser can open it.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Request } from 'express';
import type { Redis } from '@svc/accounts';
import { sessionCookieOf } from '../http/web-session.ts';
import { seal, unseal } from '@svc/credentials';
import { OK } from '../store/redis-keys.ts';

/** How long a new key waits for its reveal page: the redirect is followed at once, so a minute is ample. */
export const REVEAL_TTL_SECONDS = 60;
const INFO = 'svc dashboard reveal v1';
/** What the reveal page's path carries: 16 random bytes, base64url. */
const REVEAL_ID = /^[A-Za-z0-9_-]{22}$/;

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

export interface Reveals {
  /** Stores `value` for one read by this browser's session; the id to put in the reveal page's path. */
  put(req: Request, value: unknown): Promise<string>;
  /** The value stored under `id` for this session, once; null when read already, expired, or not this session's. */
  take(req: Request, id: string): Promise<unknown>;
}

export function createReveals(redis: Redis): Reveals {
  return {
    async put(req, value) {
      const cookie = sessionCookieOf(req);
      // The dashboard's pages all run signed in (kit.ts actorOf), so a cookie is always there.
      if (!cookie) throw new Error('a reveal needs a browser session');
      const id = randomBytes(16).toString('base64url');
      await redis.set(OK.reveal(sha(cookie), id), seal(`${cookie}|${id}`, value, INFO), 'EX', REVEAL_TTL_SECONDS);
      return id;
    },
    async take(req, id) {
      const cookie = sessionCookieOf(req);
      if (!cookie || !REVEAL_ID.test(id)) return null;
      const sealed = await redis.getdel(OK.reveal(sha(cookie), id));
      return sealed === null ? null : unseal(`${cookie}|${id}`, sealed, INFO);
    },
  };
}
