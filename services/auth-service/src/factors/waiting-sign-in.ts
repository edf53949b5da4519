/**
 * The sign-in that waits for its second factor or its enrolment, as its pages see it
 * (docs/auth-service.md "Second factor"): the wait begun after the password (or a provider's
 * answer), read back on each page, and ended in the session it was waiting for.
 */
import type { Request, Response } from 'express';
import type { Accounts, Redis, User } from '@svc/accounts';
import { ROUTES } from '../http/routes.ts';
import type { WebSessions } from '../http/web-session.ts';
import { pendingSignIns, type PendingSignIn, type PendingStage } from './pending.ts';
import { FACTOR_AT_FIELD } from './step-up.ts';

/** A waiting sign-in and its person. */
export interface WaitingSignIn {
  p: PendingSignIn;
  user: User;
}

/** The waiting sign-ins of the factor pages. */
export type WaitingSignIns = ReturnType<typeof waitingSignIns>;

/** Begins, reads and ends the sign-ins waiting for a factor. */
export function waitingSignIns(deps: { redis: Redis; secure: boolean; accounts: Accounts; web: WebSessions }) {
  const pending = pendingSignIns(deps);

  /** The session of a sign-in that waited for its factor: an SSO sign-in's keeps its shorter life. */
  const startSession = (req: Request, res: Response, p: PendingSignIn) =>
    deps.web.start(req, res, p.userId, {
      fields: { [FACTOR_AT_FIELD]: String(Date.now()) },
      ...(p.sessionSeconds ? { ttlSeconds: p.sessionSeconds } : {}),
    });
  /** Its audit detail: the factor, and the workspace whose provider it began at, if any. */
  const signedInDetail = (p: PendingSignIn, factor: string) => ({ factor, ...(p.via ? { method: 'sso', workspace: p.via } : {}) });

  return {
    /** Asks for the factor (`has`) or its enrolment, with no session yet; the page that does. */
    async wait(res: Response, p: Omit<PendingSignIn, 'stage'>, has: boolean): Promise<string> {
      await pending.start(res, { ...p, stage: has ? 'verify' : 'enrol' });
      return has ? ROUTES.signInFactor.path : ROUTES.enrol.path;
    },

    /** The sign-in waiting at `stage`; null once the browser was sent back to the sign-in page. */
    async read(req: Request, res: Response, stage: PendingStage): Promise<WaitingSignIn | null> {
      const p = await pending.get(req);
      const user = p?.stage === stage ? await deps.accounts.users.get(p.userId) : null;
      if (!p || !user) {
        res.redirect(303, ROUTES.signIn.path);
        return null;
      }
      return { p, user };
    },

    /**
     * The session starts once the factor is given (`second`) or set up (`enrolled`), and the wait
     * ends in the same step; false, the browser sent back to the sign-in page, when another
     * request ended it first (two tabs cannot both finish it).
     */
    async finish(req: Request, res: Response, w: WaitingSignIn, factor: 'second' | 'enrolled'): Promise<boolean> {
      if (!(await pending.finish(req, res))) {
        res.redirect(303, ROUTES.signIn.path);
        return false;
      }
      await startSession(req, res, w.p);
      await deps.accounts.audit.recordOwn(w.user, 'signin.succeeded', { source: req.ip ?? '' }, signedInDetail(w.p, factor));
      return true;
    },
  };
}
