/**
 * The browser session of our own pages (sign-in, sign-up, consent): an opaque cookie whose
 * SHA-256 names a Redis hash. Cookies are HttpOnly, SameSite=Lax, and Secure when the auth host
 * is served over TLS (docs/auth-service.md "Sign-in protections").
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Redis } from '@svc/accounts';
import { INVALIDATES, INVALIDATION_CHANNEL, oidcRecords } from '@svc/accounts';
import { OK } from '../store/redis-keys.ts';
import { runScript, script } from '@svc/limits';
import { html, type SafeHtml } from '../ui/html.ts';

const SESSION_COOKIE = 'svc_session';
const CSRF_COOKIE = 'svc_csrf';
const SESSION_TTL_SECONDS = 14 * 86_400;
/** How often a session's last activity is written: at most once a minute, on a request that reads it. */
const SEEN_EVERY_MS = 60_000;
/** Records a session's last activity only while it exists: never a session hash without its expiry. */
const SEEN = script(
  `if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'seenAt', ARGV[1], 'seenIp', ARGV[2]) end return 1`,
);
/** What our CSRF cookie holds: 32 random bytes, base64url. */
const CSRF_VALUE = /^[A-Za-z0-9_-]{43}$/;

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

/** This browser's session cookie value (never stored: Redis keys hold its SHA-256), or undefined. */
export const sessionCookieOf = (req: { headers: { cookie?: string | undefined } }): string | undefined => {
  const id = readCookie(req, SESSION_COOKIE);
  return id && id.length <= 100 ? id : undefined;
};

/** One browser session of a person, as the account page lists it (never the cookie value). */
export interface BrowserSession {
  /** A handle for ending it: the first 16 characters of the SHA-256 of its cookie value. */
  handle: string;
  createdAt: number;
  /** The browser's User-Agent when it signed in, cut to 160 characters. */
  agent: string;
  /** The address it signed in from ('' for a session older than this field). */
  address: string;
  /** Its last request (to the minute, SEEN_EVERY_MS) and from where; its sign-in when none since. */
  seenAt: number;
  seenAddress: string;
  current: boolean;
}

export interface WebSessions {
  userOf(req: Request): Promise<string | null>;
  /**
   * Starts a session of `userId`: `ttlSeconds` (SESSION_TTL_SECONDS unless shorter, as an SSO
   * sign-in's is); `fields` are kept on it too (the time of its second factor, factors/step-up.ts).
   */
  start(req: Request, res: Response, userId: string, options?: { ttlSeconds?: number; fields?: Record<string, string> }): Promise<void>;
  /** Ends this browser's session; what it held (its fields: `ssoWorkspace` when single sign-on started it), or null. */
  end(req: Request, res: Response): Promise<Record<string, string> | null>;
  /** The person's live browser sessions, newest first; `current` marks this request's. */
  list(req: Request, userId: string): Promise<BrowserSession[]>;
  /** Ends one of the person's sessions by its handle; false when there is none. */
  endOne(userId: string, handle: string): Promise<boolean>;
  /**
   * Ends every session of the person but this request's (all of them when `req` is null, as
   * after a password reset), and their oidc-provider sessions; the number of browser sessions ended.
   */
  endOthers(req: Request | null, userId: string): Promise<number>;
  /** Ends the person's sessions started with `fields[field] === value` (one SSO sign-in's: docs/auth-service.md "Logout from the company's provider"); how many. */
  endWhere(userId: string, field: string, value: string): Promise<number>;
  /**
   * The CSRF token of this browser's forms: an HMAC, under the cookie key, of the browser's random
   * `svc_csrf` cookie (set when absent) and its session; never the cookie value itself.
   */
  csrfToken(req: Request, res: Response): string;
  /** True when the form's `csrf` field is the token of this browser's CSRF cookie and session. */
  csrfValid(req: Request): boolean;
}

/**
 * The CSRF token is bound to the session (docs/auth-service.md "Sign-in protections"): a form's
 * token is HMAC(cookie key, "csrf" | the svc_csrf cookie | the session's hash). Someone who can
 * plant a cookie in the browser (a sibling subdomain, a plain-http response) cannot also produce
 * the token for it without the key, nor for the victim's session, which they do not know. Forms
 * shown before sign-in are bound to the browser's cookie alone; the Origin check backs them.
 */
function csrfMac(key: string, cookie: string, sessionHash: string): string {
  return createHmac('sha256', key).update(`csrf|${cookie}|${sessionHash}`).digest('base64url');
}

/** A MULTI's results, or its first error thrown: the writes of one key in one step. */
async function exec(multi: ReturnType<Redis['multi']>): Promise<unknown[]> {
  const results = (await multi.exec()) ?? [];
  const failed = results.find(([err]) => err);
  if (failed?.[0]) throw failed[0];
  return results.map(([, value]) => value);
}

/** Deletes a session and its index entry, answering what it held (null: none). */
async function takeSession(redis: Redis, idHash: string): Promise<Record<string, string> | null> {
  // Read and delete in one step: what is removed from the index is what was deleted.
  const [fields] = await exec(redis.multi().hgetall(OK.webSession(idHash)).del(OK.webSession(idHash)));
  const held = fields && typeof fields === 'object' && Object.keys(fields).length > 0 ? (fields as Record<string, string>) : null;
  if (typeof held?.['userId'] === 'string') await redis.srem(OK.userWebSessions(held['userId']), idHash);
  return held;
}

export function createWebSessions(deps: { redis: Redis; secure: boolean; keys: string[]; now?: () => number }): WebSessions {
  const [signingKey] = deps.keys;
  if (!signingKey) throw new Error('web sessions need a cookie key (COOKIE_KEYS)');
  const cookie = { httpOnly: true, sameSite: 'lax' as const, secure: deps.secure, path: '/' };
  const now = deps.now ?? Date.now;
  const own = (req: Request): string | null => {
    const id = readCookie(req, SESSION_COOKIE);
    return id && id.length <= 100 ? sha(id) : null;
  };
  const handleOf = (idHash: string) => idHash.slice(0, 16);

  /** The person's session hashes; ended ones are dropped from the index on the way. */
  async function live(
    userId: string,
  ): Promise<{ idHash: string; createdAt: number; agent: string; address: string; seenAt: number; seenAddress: string }[]> {
    const index = OK.userWebSessions(userId);
    const out = [];
    for (const idHash of await deps.redis.smembers(index)) {
      const h = await deps.redis.hgetall(OK.webSession(idHash));
      if (h['userId'] !== userId) await deps.redis.srem(index, idHash);
      else {
        const createdAt = Number(h['createdAt']);
        const address = h['ip'] ?? '';
        out.push({
          idHash,
          createdAt,
          agent: h['agent'] ?? '',
          address,
          seenAt: Number(h['seenAt'] ?? createdAt),
          seenAddress: h['seenIp'] ?? address,
        });
      }
    }
    return out.sort((a, b) => b.createdAt - a.createdAt);
  }

  async function endHash(userId: string, idHash: string): Promise<void> {
    await deps.redis.del(OK.webSession(idHash));
    await deps.redis.srem(OK.userWebSessions(userId), idHash);
  }

  /** The person's oidc-provider sessions: the record and its uid lookup (tokens bound to it stop). */
  async function endProviderSessions(userId: string): Promise<void> {
    const index = OK.accountSessions(userId);
    for (const digest of await deps.redis.smembers(index)) {
      const uid = (await oidcRecords.sessionByDigest(deps.redis, digest))?.uid;
      await deps.redis.del(OK.modelByDigest('Session', digest));
      if (uid) await deps.redis.del(OK.sessionUid(uid));
      await deps.redis.publish(INVALIDATION_CHANNEL, INVALIDATES.oauthRecord('Session', digest));
    }
    await deps.redis.del(index);
  }

  return {
    async userOf(req) {
      const idHash = own(req);
      if (!idHash) return null;
      const [userId, seenAt] = await deps.redis.hmget(OK.webSession(idHash), 'userId', 'seenAt');
      // Its last activity, for the account page's list of sessions; once a minute at most.
      if (userId && now() - Number(seenAt ?? 0) >= SEEN_EVERY_MS)
        await runScript(deps.redis, SEEN, [OK.webSession(idHash)], [String(now()), req.ip ?? '']);
      return userId ?? null;
    },
    async start(req, res, userId, { ttlSeconds = SESSION_TTL_SECONDS, fields = {} } = {}) {
      const ttl = Math.min(ttlSeconds, SESSION_TTL_SECONDS);
      const id = randomBytes(32).toString('base64url');
      const key = OK.webSession(sha(id));
      const agent = String(req.headers['user-agent'] ?? '').slice(0, 160);
      // The session and its lifetime in one step (never a session without expiry), then the
      // person's index likewise; the two keys sit in different Cluster slots, so they are two
      // steps, in this order: an index entry always names a session that was written.
      await exec(
        deps.redis
          .multi()
          .hset(key, { ...fields, userId, createdAt: String(now()), agent, ip: req.ip ?? '', seenAt: String(now()), seenIp: req.ip ?? '' })
          .expire(key, ttl),
      );
      const index = OK.userWebSessions(userId);
      await exec(deps.redis.multi().sadd(index, sha(id)).expire(index, SESSION_TTL_SECONDS));
      res.cookie(SESSION_COOKIE, id, { ...cookie, maxAge: ttl * 1000 });
    },
    async end(req, res) {
      const idHash = own(req);
      const held = idHash ? await takeSession(deps.redis, idHash) : null;
      res.clearCookie(SESSION_COOKIE, cookie);
      return held;
    },
    async list(req, userId) {
      const mine = own(req);
      return (await live(userId)).map((s) => ({
        handle: handleOf(s.idHash),
        createdAt: s.createdAt,
        agent: s.agent,
        address: s.address,
        seenAt: s.seenAt,
        seenAddress: s.seenAddress,
        current: s.idHash === mine,
      }));
    },
    async endOne(userId, handle) {
      const found = (await live(userId)).find((s) => handleOf(s.idHash) === handle);
      if (!found) return false;
      await endHash(userId, found.idHash);
      return true;
    },
    async endOthers(req, userId) {
      const mine = req ? own(req) : null;
      let n = 0;
      for (const s of await live(userId)) {
        if (s.idHash === mine) continue;
        await endHash(userId, s.idHash);
        n++;
      }
      await endProviderSessions(userId);
      return n;
    },
    async endWhere(userId, field, value) {
      let n = 0;
      for (const s of await live(userId))
        if ((await deps.redis.hget(OK.webSession(s.idHash), field)) === value) {
          await endHash(userId, s.idHash);
          n++;
        }
      return n;
    },
    csrfToken(req, res) {
      let value = readCookie(req, CSRF_COOKIE);
      if (!value || !CSRF_VALUE.test(value)) {
        value = randomBytes(32).toString('base64url');
        res.cookie(CSRF_COOKIE, value, cookie);
        // The page being rendered in this same response must carry the new value.
        (req.headers as Record<string, string>)['cookie'] = `${req.headers.cookie ?? ''}; ${CSRF_COOKIE}=${value}`;
      }
      return csrfMac(signingKey, value, own(req) ?? '');
    },
    csrfValid(req) {
      const value = readCookie(req, CSRF_COOKIE);
      const given = (req.body as Record<string, unknown> | undefined)?.['csrf'];
      if (!value || !CSRF_VALUE.test(value) || typeof given !== 'string') return false;
      // Every key of COOKIE_KEYS verifies, so a rotation (new key first) keeps open forms working.
      return deps.keys.some((key) => {
        const expected = Buffer.from(csrfMac(key, value, own(req) ?? ''));
        return given.length === expected.length && timingSafeEqual(Buffer.from(given), expected);
      });
    },
  };
}

/** A hidden form field carrying the CSRF token. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}
