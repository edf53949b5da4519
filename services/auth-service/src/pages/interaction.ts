/**
 * The interaction pages oidc-provider sends the browser to (`/interaction/:uid`, where its
 * interaction cookie is scoped). Login is handed to our sign-in pages and finished from our
 * session; consent renders the page of the client's profile and records the Grant, with the
 * chosen project as its resource (RFC 8707; oidc-provider docs: the consent step adds resource
 * scopes to the Grant, and is where project membership is checked).
 */
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { AccountError, CREATE_SVC_KEY_TTL_SECONDS, type Accounts, type RequestOutcome, type User } from '@svc/accounts';
import { isKeyLevel, scopeForLevel } from '@svc/policy';
import type { Config } from '@svc/config';
import { ManagementError, type Management } from '@svc/management';
import type Provider from 'oidc-provider';
import { displayClientName, isVerifiedClient } from '../oauth/client-names.ts';
import { TTL } from '../provider/configuration.ts';
import { projectOfResource, resourceFor } from '../provider/resource.ts';
import type { WebSessions } from '../http/web-session.ts';
import { render } from './html.ts';
import { confirmFirstPage } from './confirm-first.ts';
import { kindOf, redirectHostOf, type Details } from './interaction-kind.ts';
import type { EmailVerification } from './email-verification.ts';
import { CREATE_SVC_KEY_LEVEL, grantedScope, grantedScopeForSelection, offeredLevels } from './consent-levels.ts';
import { ensurePersonalProject, existingPersonalProject, projectNameOf } from './personal-project.ts';
import {
  noAccessPage,
  personalKeyConsent,
  projectApprovalConsent,
  projectSelectionConsent,
  provisionConsent,
  refusalPage,
  type ConsentView,
} from './consent-views.ts';

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

/** How long an approval lasts, said on the consent page: the Grant's lifetime, in whole days. */
const ACCESS_DAYS = Math.floor(TTL.Grant / 86_400);

export function interactionPages(deps: InteractionDeps) {
  const { provider, accounts } = deps;

  async function load(req: Request, res: Response): Promise<{ details: Details; user: User | null } | null> {
    let details: Details;
    try {
      details = await provider.interactionDetails(req, res);
    } catch {
      render(res, refusalPage('Request expired', 'This sign-in request has expired or was already finished. Start again on your device.'), {
        status: 400,
      });
      return null;
    }
    const userId = await deps.web.userOf(req);
    return { details, user: userId ? await accounts.users.get(userId) : null };
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
      render(res, refusalPage(refused, 'The form expired or you were signed out. Start again on your device.'), { status: 403 });
      return null;
    }
    if (!user.emailVerifiedAt) {
      confirmFirst(req, res, details, user);
      return null;
    }
    return { details, user };
  }

  /** An unconfirmed address approves nothing (docs/auth-service.md "Proven addresses"): 403 and the way to confirm. */
  function confirmFirst(req: Request, res: Response, details: Details, user: User, sent?: boolean): void {
    const v = { uid: details.uid, csrf: deps.web.csrfToken(req, res), email: user.email, emailOn: deps.verification.enabled, sent };
    render(res, confirmFirstPage(v), { status: 403 });
  }

  async function showConsent(req: Request, res: Response, details: Details, user: User, error?: string): Promise<void> {
    if (!user.emailVerifiedAt) return confirmFirst(req, res, details, user);
    const clientId = String(details.params['client_id']);
    const client = await provider.Client.find(clientId);
    const v: ConsentView = {
      uid: details.uid,
      csrf: deps.web.csrfToken(req, res),
      clientName: displayClientName(client?.clientName ?? clientId),
      verified: isVerifiedClient(clientId),
      redirectHost: redirectHostOf(details.params['redirect_uri']),
      email: user.email,
      error,
      accessDays: ACCESS_DAYS,
    };
    const status = error ? 400 : 200;
    switch (kindOf(details)) {
      case 'personal':
        return void render(res, personalKeyConsent(v), { status });
      case 'provision':
        return void render(
          res,
          provisionConsent(v, user.workspace, {
            existing: await existingPersonalProject(accounts, user, projectNameOf(details.params)),
            name: projectNameOf(details.params),
            keyLevel: CREATE_SVC_KEY_LEVEL,
            keyDays: CREATE_SVC_KEY_TTL_SECONDS / 86_400,
          }),
          { status },
        );
      case 'approve': {
        const slug = projectOfResource(deps.config.baseUrl, details.params['resource']);
        const project = slug ? await accounts.workspaces.getProject(slug) : null;
        const role = project ? await accounts.workspaces.roleOf(user.id, project) : 'NONE';
        if (!project || role === 'NONE') {
          return void render(res, noAccessPage(v, slug ?? '', project !== null), { status: 403 });
        }
        const levels = offeredLevels(role, details.params['scope']);
        return void render(res, projectApprovalConsent(v, { project, role }, levels), { status });
      }
      case 'select':
        return void render(
          res,
          projectSelectionConsent(
            v,
            await accounts.workspaces.accessibleProjects(user.id),
            offeredLevels('ADMIN', details.params['scope']),
          ),
          { status },
        );
    }
  }

  return {
    async get(req: Request, res: Response): Promise<void> {
      const loaded = await load(req, res);
      if (!loaded) return;
      const { details, user } = loaded;
      const back = `/interaction/${details.uid}`;
      if (!user) return void res.redirect(303, `/signin?return=${encodeURIComponent(back)}`);
      if (details.prompt.name === 'login') {
        await provider.interactionFinished(req, res, { login: { accountId: user.id } }, { mergeWithLastSubmission: false });
        return;
      }
      if (details.session?.accountId !== user.id) return void res.redirect(303, `/signin?return=${encodeURIComponent(back)}`);
      await showConsent(req, res, details, user);
    },

    async consent(req: Request, res: Response): Promise<void> {
      const form = await loadForm(req, res, 'Not approved');
      if (!form) return;
      const { details, user } = form;
      const body = (req.body ?? {}) as Record<string, unknown>;
      let resource: string | undefined;
      // Every Grant records the level approved on its page (consent-levels.ts); the personal key
      // of svc-cli records no resource at all.
      let scope: string = scopeForLevel(CREATE_SVC_KEY_LEVEL);
      switch (kindOf(details)) {
        case 'personal':
          if (body['confirm_all_projects'] !== 'yes' || body['confirm_expiry'] !== 'yes') {
            return showConsent(req, res, details, user, 'Tick both boxes to create the key.');
          }
          break;
        case 'provision':
          resource = resourceFor(deps.config.baseUrl, await ensurePersonalProject(accounts, user, projectNameOf(details.params)));
          break;
        case 'approve':
        case 'select': {
          const slug =
            typeof details.params['resource'] === 'string'
              ? projectOfResource(deps.config.baseUrl, details.params['resource'])
              : String(body['project'] ?? '');
          const project = slug ? await accounts.workspaces.getProject(slug) : null;
          const role = project ? await accounts.workspaces.roleOf(user.id, project) : 'NONE';
          if (!project || role === 'NONE') {
            return showConsent(req, res, details, user, 'Choose a project you have access to.');
          }
          resource = resourceFor(deps.config.baseUrl, project.slug);
          const chosen =
            kindOf(details) === 'approve'
              ? grantedScope(role, details.params['scope'], body['level'])
              : grantedScopeForSelection(role, details.params['scope'], body['level']);
          if (!chosen) return showConsent(req, res, details, user, 'Choose one of the access levels offered.');
          scope = chosen;
        }
      }
      const grant = new provider.Grant({ accountId: user.id, clientId: String(details.params['client_id']) });
      const prompt = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
      if (prompt.missingOIDCScope?.length) grant.addOIDCScope(prompt.missingOIDCScope.join(' '));
      if (prompt.missingOIDCClaims?.length) grant.addOIDCClaims(prompt.missingOIDCClaims);
      if (resource) grant.addResourceScope(resource, scope);
      const grantId = await grant.save();
      // In the log of the workspace the app now reaches (the person's own for a personal key).
      const slug = resource ? projectOfResource(deps.config.baseUrl, resource) : null;
      const workspace = (slug ? (await accounts.workspaces.getProject(slug))?.workspace : undefined) ?? user.workspace;
      await accounts.audit.record({
        workspace,
        actor: user.email,
        action: 'oauth_app.authorized',
        target: `client:${String(details.params['client_id'])}`,
        source: req.ip ?? '',
        requestId: randomUUID(),
        detail: {
          ...(slug ? { project: slug } : { personal_key: String(details.params['client_id']) }),
          scope: resource ? scope : 'personal key',
        },
      });
      await provider.interactionFinished(req, res, { consent: { grantId }, svc: { resource } }, { mergeWithLastSubmission: true });
    },

    /** No access: an access request for the person, and access_denied for the client. */
    async requestAccess(req: Request, res: Response): Promise<void> {
      const form = await loadForm(req, res, 'Not sent');
      if (!form) return;
      const { details, user } = form;
      const slug = projectOfResource(deps.config.baseUrl, details.params['resource']);
      const project = slug ? await accounts.workspaces.getProject(slug) : null;
      if (!project) return void render(res, refusalPage('Not sent', 'There is no such project.'), { status: 404 });
      const body = (req.body ?? {}) as Record<string, unknown>;
      const requestedLevel = isKeyLevel(body['level']) ? body['level'] : 'EDITOR';
      const reason = typeof body['reason'] === 'string' ? body['reason'].slice(0, 500) : '';
      const requester = { type: 'user' as const, id: user.id, label: user.email };
      let request: RequestOutcome;
      try {
        const origin = { source: req.ip ?? '', requestId: randomUUID() };
        request = await accounts.accessRequests.create({ project: project.slug, requester, requestedLevel, reason }, origin);
      } catch (err) {
        // Too many requests await a decision (docs/management.md "Collection limits"), or a
        // denial is too recent (docs/management.md "Access request lifecycle").
        if (!(err instanceof AccountError && (err.code === 'limit' || err.code === 'cooldown'))) throw err;
        return void render(res, refusalPage('Not sent', err.message), { status: 409 });
      }
      await deps.management.accessRequested(request);
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: `no access to project ${project.slug} yet; access was requested from its admins` },
        { mergeWithLastSubmission: false },
      );
    },

    /** A person without a project creates one in their own workspace, then chooses it (no dead end). */
    async createProject(req: Request, res: Response): Promise<void> {
      const form = await loadForm(req, res, 'Not created');
      if (!form) return;
      const { details, user } = form;
      const body = (req.body ?? {}) as Record<string, unknown>;
      const name = typeof body['name'] === 'string' ? body['name'].trim() : '';
      try {
        await deps.management.createProject(
          { kind: 'person', userId: user.id, label: user.email, source: req.ip ?? '', requestId: randomUUID() },
          { name, workspace: user.workspace },
        );
      } catch (err) {
        if (!(err instanceof ManagementError) || (err.status !== 400 && err.status !== 409)) throw err;
        return showConsent(req, res, details, user, err.message);
      }
      res.redirect(303, `/interaction/${details.uid}`);
    },

    /** "Send the link again" from the page an unconfirmed address gets. */
    async resendConfirmation(req: Request, res: Response): Promise<void> {
      const loaded = await load(req, res);
      if (!loaded) return;
      const { details, user } = loaded;
      if (!user || details.session?.accountId !== user.id || !deps.web.csrfValid(req))
        return void render(res, refusalPage('Not sent', 'The form expired or you were signed out. Start again on your device.'), {
          status: 403,
        });
      if (user.emailVerifiedAt) return void res.redirect(303, `/interaction/${details.uid}`);
      confirmFirst(req, res, details, user, await deps.verification.send(user));
    },

    async abort(req: Request, res: Response): Promise<void> {
      const loaded = await load(req, res);
      if (!loaded) return;
      if (!deps.web.csrfValid(req))
        return void render(res, refusalPage('Not cancelled', 'The form expired. Start again.'), { status: 403 });
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'the person declined the request' },
        { mergeWithLastSubmission: false },
      );
    },
  };
}
