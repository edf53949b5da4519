/**
 * The consent page of an interaction (docs/auth-service.md "Scopes", "Consent pages"): the page
 * of the client's profile, and its form, which records the Grant with the chosen project as its
 * resource and the approved level as its scope (RFC 8707; oidc-provider docs: the consent step
 * adds resource scopes to the Grant, and is where project membership is checked).
 */
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { AUDIT_AGENTS, CREATE_SVC_KEY_TTL_SECONDS, USER_KEY_TTL_SECONDS, type User } from '@svc/accounts';
import { scopeForLevel } from '@svc/policy';
import { displayClientName, isVerifiedClient } from '../oauth/client-names.ts';
import { TTL } from '../oauth/lifetimes.ts';
import { projectOfResource, resourceFor } from '../oauth/resource.ts';
import { CREATE_SVC_KEY_LEVEL, grantedScope, grantedScopeForSelection, offeredLevels } from '../oauth/consent-levels.ts';
import { admittedBy, clientGovernance, type Governed } from '../oauth/client-governance.ts';
import {
  clientGovernedPage,
  noAccessPage,
  personalKeyConsent,
  projectApprovalConsent,
  projectSelectionConsent,
  provisionConsent,
  type ConsentView,
} from './consent-views.ts';
import { render } from '../ui/html.ts';
import { kindOf, redirectHostOf, type Details } from './interaction-kind.ts';
import type { InteractionDeps, InteractionForms } from './interaction-forms.ts';
import { ensurePersonalProject, existingPersonalProject, projectNameOf } from '../oauth/personal-project.ts';

/** How long an approval lasts, said on the consent page: the Grant's lifetime, in whole days. */
const ACCESS_DAYS = Math.floor(TTL.Grant / 86_400);

/**
 * What the person approved: the resource (none for a personal key) and the scope recorded for it;
 * or what to change on the page; or the workspace's client policy that does not admit the client.
 */
type Approval = { resource: string | undefined; scope: string } | { error: string } | { governed: Held };
/** A verdict that does not admit the client. */
type Held = Extract<Governed, { outcome: 'refused' | 'pending' }>;

/** What every consent page shows of the client, the person and the form. */
async function viewOf(
  deps: Pick<InteractionDeps, 'provider' | 'web'>,
  req: Request,
  res: Response,
  details: Details,
  user: User,
  error?: string,
): Promise<ConsentView> {
  const clientId = String(details.params['client_id']);
  const client = await deps.provider.Client.find(clientId);
  return {
    uid: details.uid,
    csrf: deps.web.csrfToken(req, res),
    clientName: displayClientName(client?.clientName ?? clientId),
    verified: isVerifiedClient(clientId),
    redirectHost: redirectHostOf(details.params['redirect_uri']),
    email: user.email,
    error,
    accessDays: ACCESS_DAYS,
  };
}

/** The consent page and its form. */
export function consentPage(deps: Pick<InteractionDeps, 'provider' | 'accounts' | 'web' | 'config'>, forms: InteractionForms) {
  const { provider, accounts } = deps;
  const { baseUrl } = deps.config;
  const governance = clientGovernance(accounts, async (id) => (await provider.Client.find(id))?.clientName ?? null);
  /** The verdict of the project's workspace on the interaction's client (docs/management.md "Client governance"). */
  const governed = (req: Request, details: Details, user: User, project: { slug: string; workspace: string }) =>
    governance.check({
      workspace: project.workspace,
      project: project.slug,
      clientId: String(details.params['client_id']),
      person: user,
      source: req.ip ?? '',
    });

  /** The page of the interaction's kind; with `error`, a 400 saying what to change. */
  async function show(req: Request, res: Response, details: Details, user: User, error?: string): Promise<void> {
    if (!user.emailVerifiedAt) return forms.confirmFirst(req, res, details, user);
    const v = await viewOf(deps, req, res, details, user, error);
    const refusal = error ? 'invalid_form' : undefined;
    switch (kindOf(details)) {
      case 'personal':
        return void render(res, personalKeyConsent(v, USER_KEY_TTL_SECONDS / 86_400), { refusal });
      case 'provision':
        return void render(
          res,
          provisionConsent(v, user.workspace, {
            existing: await existingPersonalProject(accounts, user, projectNameOf(details.params)),
            name: projectNameOf(details.params),
            keyLevel: CREATE_SVC_KEY_LEVEL,
            keyDays: CREATE_SVC_KEY_TTL_SECONDS / 86_400,
          }),
          { refusal },
        );
      case 'approve': {
        const slug = projectOfResource(baseUrl, details.params['resource']);
        const project = slug ? await accounts.workspaces.getProject(slug) : null;
        const role = project ? await accounts.workspaces.roleOf(user.id, project) : 'NONE';
        if (!project || role === 'NONE') {
          return void render(res, noAccessPage(v, slug ?? '', project !== null), { refusal: 'forbidden' });
        }
        const verdict = await governed(req, details, user, project);
        if (verdict.outcome !== 'allowed') return void render(res, clientGovernedPage(v, verdict), { refusal: 'forbidden' });
        const levels = offeredLevels(role, details.params['scope']);
        return void render(res, projectApprovalConsent({ ...v, admittedBy: admittedBy(verdict) }, { project, role }, levels), {
          refusal,
        });
      }
      case 'select':
        return void render(
          res,
          projectSelectionConsent(
            v,
            await accounts.workspaces.accessibleProjects(user.id),
            offeredLevels('ADMIN', details.params['scope']),
          ),
          { refusal },
        );
    }
  }

  /** What the form approved, by the interaction's kind, or what to change on the page. */
  async function approvalOf(req: Request, details: Details, user: User, body: Record<string, unknown>): Promise<Approval> {
    // Every Grant records the level approved on its page (consent-levels.ts); the personal key
    // of svc-cli records no resource at all.
    const kind = kindOf(details);
    switch (kind) {
      case 'personal':
        // docs/contract.md "Client profiles" rule 2: the person confirms the key's reach and expiry.
        if (body['confirm_key'] !== 'yes') return { error: 'Tick the box to confirm what this key can do, or deny.' };
        return { resource: undefined, scope: scopeForLevel(CREATE_SVC_KEY_LEVEL) };
      case 'provision': {
        const slug = await ensurePersonalProject(accounts, user, projectNameOf(details.params));
        if (!slug) return { error: 'Your project is still being made. Send the form again.' };
        return { resource: resourceFor(baseUrl, slug), scope: scopeForLevel(CREATE_SVC_KEY_LEVEL) };
      }
      case 'approve':
      case 'select': {
        const slug =
          typeof details.params['resource'] === 'string'
            ? projectOfResource(baseUrl, details.params['resource'])
            : String(body['project'] ?? '');
        const project = slug ? await accounts.workspaces.getProject(slug) : null;
        const role = project ? await accounts.workspaces.roleOf(user.id, project) : 'NONE';
        if (!project || role === 'NONE') return { error: 'Choose a project you have access to.' };
        // Checked again here: a form is sent without its page, and a chosen project's workspace is known only now.
        const verdict = await governed(req, details, user, project);
        if (verdict.outcome !== 'allowed') return { governed: verdict };
        const scope =
          kind === 'approve'
            ? grantedScope(role, details.params['scope'], body['level'])
            : grantedScopeForSelection(role, details.params['scope'], body['level']);
        if (!scope) return { error: 'Choose one of the access levels offered.' };
        return { resource: resourceFor(baseUrl, project.slug), scope };
      }
    }
  }

  /** The Grant of the approval, with the OpenID scopes and claims oidc-provider still asks for; its id. */
  async function saveGrant(details: Details, user: User, resource: string | undefined, scope: string): Promise<string> {
    const grant = new provider.Grant({ accountId: user.id, clientId: String(details.params['client_id']) });
    const prompt = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
    if (prompt.missingOIDCScope?.length) grant.addOIDCScope(prompt.missingOIDCScope.join(' '));
    if (prompt.missingOIDCClaims?.length) grant.addOIDCClaims(prompt.missingOIDCClaims);
    if (resource) grant.addResourceScope(resource, scope);
    return grant.save();
  }

  /** The approval in the audit log of the workspace the app now reaches (the person's own for a personal key). */
  async function auditAuthorized(req: Request, details: Details, user: User, resource: string | undefined, scope: string): Promise<void> {
    const slug = resource ? projectOfResource(baseUrl, resource) : null;
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
      principal: { type: 'user', id: user.id, label: user.email },
      agent: AUDIT_AGENTS.web,
    });
  }

  /** The consent form: the approval, its Grant, its audit entry, and the interaction finished with them. */
  async function approve(req: Request, res: Response): Promise<void> {
    const form = await forms.loadForm(req, res, 'Not approved');
    if (!form) return;
    const { details, user } = form;
    const approval = await approvalOf(req, details, user, (req.body ?? {}) as Record<string, unknown>);
    if ('error' in approval) return show(req, res, details, user, approval.error);
    if ('governed' in approval)
      return void render(res, clientGovernedPage(await viewOf(deps, req, res, details, user), approval.governed), { refusal: 'forbidden' });
    const { resource, scope } = approval;
    const grantId = await saveGrant(details, user, resource, scope);
    await auditAuthorized(req, details, user, resource, scope);
    await provider.interactionFinished(req, res, { consent: { grantId }, svc: { resource } }, { mergeWithLastSubmission: true });
  }

  return { show, approve };
}
