/**
 * How the interaction pages read their request (docs/auth-service.md "Consent pages"): the
 * interaction oidc-provider keeps under its cookie and the person signed in; for a form, that it
 * is theirs, with a valid CSRF token and a confirmed address (docs/auth-service.md "Proven
 * addresses"), or the page saying why not.
 */
import type { Request, Response } from 'express';
import type { Accounts, User } from '@svc/accounts';
import type { Config } from '@svc/config';
import type { Management } from '@svc/management';
import type Provider from 'oidc-provider';
import type { WebSessions } from '../http/web-session.ts';
import { confirmFirstPage } from './confirm-first.ts';
import { refusalPage } from './consent-views.ts';
import { render } from '../ui/html.ts';
import type { EmailVerification } from './email-verification.ts';
import type { Details } from './interaction-kind.ts';

/** What the interaction pages read (interaction.ts and the pages it hands forms to). */
export interface InteractionDeps {
  provider: Provider;
  accounts: Accounts;
  web: WebSessions;
  config: Config;
  /** Tells the project's admins of an access request made here; creates a project for a person without one. */
  management: Pick<Management, 'accessRequested' | 'createProject'>;
  /** Mails the confirmation link again from the "confirm your address first" page. */
  verification: Pick<EmailVerification, 'enabled' | 'send'>;
}

/** An interaction and the person signed in, if anyone is. */
export interface LoadedInteraction {
  details: Details;
  user: User | null;
}

/** The interaction readers of the pages. */
export type InteractionForms = ReturnType<typeof interactionForms>;

/** Reads interactions and their forms. */
export function interactionForms(deps: Pick<InteractionDeps, 'provider' | 'accounts' | 'web' | 'verification'>) {
  const { provider, accounts } = deps;

  /** The interaction and the person signed in; null once an expired interaction was answered with its page. */
  async function load(req: Request, res: Response): Promise<LoadedInteraction | null> {
    let details: Details;
    try {
      details = await provider.interactionDetails(req, res);
    } catch {
      render(res, refusalPage('Request expired', 'This sign-in request has expired or was already finished. Start again on your device.'), {
        refusal: 'link_expired',
      });
      return null;
    }
    const userId = await deps.web.userOf(req);
    return { details, user: userId ? await accounts.users.get(userId) : null };
  }

  /** An unconfirmed address approves nothing (docs/auth-service.md "Proven addresses"): 403 and the way to confirm. */
  function confirmFirst(req: Request, res: Response, details: Details, user: User, sent?: boolean): void {
    const v = { uid: details.uid, csrf: deps.web.csrfToken(req, res), email: user.email, emailOn: deps.verification.enabled, sent };
    render(res, confirmFirstPage(v), { refusal: 'forbidden' });
  }

  /**
   * A form posted from an interaction page: the interaction, and the signed-in person it belongs
   * to with a valid CSRF token; otherwise a 403 page titled `refused` is sent and null returned.
   */
  async function loadForm(req: Request, res: Response, refused: string): Promise<{ details: Details; user: User } | null> {
    const loaded = await load(req, res);
    if (!loaded) return null;
    const { details, user } = loaded;
    if (!user || details.session?.accountId !== user.id || !deps.web.csrfValid(req)) {
      render(res, refusalPage(refused, 'The form expired or you were signed out. Start again on your device.'), {
        refusal: 'form_expired',
      });
      return null;
    }
    if (!user.emailVerifiedAt) {
      confirmFirst(req, res, details, user);
      return null;
    }
    return { details, user };
  }

  return { load, loadForm, confirmFirst };
}
