/**
 * The no-access page's form (docs/management.md "Access request lifecycle"): a person with no
 * role on the project the client asked for requests access from its admins, and the client gets
 * access_denied.
 */
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { AccountError, type RequestOutcome } from '@svc/accounts';
import { isKeyLevel } from '@svc/policy';
import { projectOfResource } from '../oauth/resource.ts';
import { refusalPage } from './consent-views.ts';
import { render } from '../ui/html.ts';
import type { InteractionDeps, InteractionForms } from './interaction-forms.ts';

/** The request-access form of an interaction. */
export function requestAccessPage(deps: Pick<InteractionDeps, 'provider' | 'accounts' | 'config' | 'management'>, forms: InteractionForms) {
  const { provider, accounts } = deps;

  /** No access: an access request for the person, and access_denied for the client. */
  return async function requestAccess(req: Request, res: Response): Promise<void> {
    const form = await forms.loadForm(req, res, 'Not sent');
    if (!form) return;
    const { details, user } = form;
    const slug = projectOfResource(deps.config.baseUrl, details.params['resource']);
    const project = slug ? await accounts.workspaces.getProject(slug) : null;
    if (!project) return void render(res, refusalPage('Not sent', 'There is no such project.'), { refusal: 'not_found' });
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
      return void render(res, refusalPage('Not sent', err.message), { refusal: 'conflict' });
    }
    await deps.management.accessRequested(request);
    await provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: `no access to project ${project.slug} yet; access was requested from its admins` },
      { mergeWithLastSubmission: false },
    );
  };
}
