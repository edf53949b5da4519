/**
 * The consent page's create-project form (docs/auth-service.md "No dead ends"): a person without
 * a project creates one in their own workspace through the management layer, then chooses it.
 */
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { ManagementError } from '@svc/management';
import type { consentPage } from './consent-page.ts';
import type { InteractionDeps, InteractionForms } from './interaction-forms.ts';

/** The create-project form of an interaction; a refusal is shown on the consent page. */
export function createProjectPage(
  deps: Pick<InteractionDeps, 'management'>,
  forms: InteractionForms,
  consent: Pick<ReturnType<typeof consentPage>, 'show'>,
) {
  /** A person without a project creates one in their own workspace, then chooses it (no dead end). */
  return async function createProject(req: Request, res: Response): Promise<void> {
    const form = await forms.loadForm(req, res, 'Not created');
    if (!form) return;
    const { details, user } = form;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const name = typeof body['name'] === 'string' ? body['name'].trim() : '';
    try {
      await deps.management.createProject(
        { kind: 'person', userId: user.id, label: user.email, source: req.ip ?? '', requestId: randomUUID() },
        user.workspace,
        { name },
      );
    } catch (err) {
      if (!(err instanceof ManagementError) || (err.status !== 400 && err.status !== 409)) throw err;
      return consent.show(req, res, details, user, err.message);
    }
    res.redirect(303, `/interaction/${details.uid}`);
  };
}
