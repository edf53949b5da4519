/**
 * What every dashboard route shares (docs/dashboard.md): who is asking (the session's person, or
 * a trip to the sign-in page and back), the CSRF check of every form, the management bucket, the
 * frame of a page, and what a refusal shows. Nothing here decides who may do what: the
 * management layer does, and a refusal becomes a page with its status.
 */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Accounts, Redis } from '@svc/accounts';
import type { Logger } from '@svc/logger';
import { countManagementRequest, ManagementError, StepUpRequired, type Actor, type Management, type ProjectRow } from '@svc/management';
import type { secondFactor } from '../factors/routes.ts';
import { factorAtOf, stepUpUrl } from '../factors/step-up.ts';
import { readCookie, type WebSessions } from '../http/web-session.ts';
import type { EmailVerification } from '../pages/email-verification.ts';
import { render, type SafeHtml } from '../ui/html.ts';
import { alertPage, page } from '../ui/layout.ts';
import { html } from '../ui/html.ts';
import type { Frame, Section } from './frame.ts';
import type { CONFIRM_FIELDS } from './form.ts';
import { formOf, type DashboardForm } from './form.ts';
import { createReveals } from './reveal.ts';
import { pageRefusalOf } from '@svc/errors';

export interface DashboardDeps {
  accounts: Accounts;
  /** Where the management bucket is counted (shared with the management API). */
  redis: Redis;
  web: WebSessions;
  management: Management;
  logger: Logger;
  verification: EmailVerification;
  /** The auth-service's public URL (config.authUrl): the SSO callback shown to copy, the cookie's Secure flag. */
  authUrl: string;
  /** The gateway's public URL (config.baseUrl): the issuer of the tokens upstream servers receive (docs/upstream-servers.md). */
  baseUrl: string;
  /** Passkey assertions (factors/passkey-routes.ts): an approval signed over its call (docs/approvals.md "With a passkey"). */
  passkeys?: Pick<ReturnType<typeof secondFactor>['passkeys'], 'askFor' | 'asserted'>;
  now?: () => number;
}

/**
 * The project a person last opened, so pages that are not a project's (a Workspace section, the
 * account) and the dashboard's entry stay on it rather than opening the first project
 * (docs/dashboard.md "Navigation"). Only a slug, checked against the person's projects on read.
 */
const PROJECT_COOKIE = 'svc_dashboard_project';

type Handler = (req: Request, res: Response, actor: Actor) => Promise<void>;
/** A page that counts in the management bucket: every POST does, and the export (a GET) too. */
type Counted = { counted?: true };
type At = { project?: string; workspace?: string };

export const str = (v: unknown) => (typeof v === 'string' ? v : '');
export const param = (req: Request, name: string) => str(req.params[name]);
/**
 * A form field's text as it came ('' when absent or not one text), only to show it again on a
 * refused form: a route reads its fields through its declared form (form.ts `formOf`).
 */
export const field = (req: Request, name: string) => str((req.body as Record<string, unknown> | undefined)?.[name]);

export const keysPath = (slug: string) => `/dashboard/projects/${encodeURIComponent(slug)}/keys`;

/** The dashboard's actors are always people (a session cookie); the account pages act on their own account. */
export const personOf = (actor: Actor): string => (actor.kind === 'person' ? actor.userId : '');

/** What a POST did, said on the page it returns to. Fixed texts: a link cannot put words on our page. */
const DONE = {
  'project-created': 'Project created.',
  'key-revoked': 'Key revoked. Apps using it are refused within a second.',
  'key-limit-changed': "Key's rate limit saved. Gateways apply it within a second.",
  'key-disabled': 'Key disabled. Apps using it are refused within a second, until you enable it again.',
  'key-enabled': 'Key enabled. Apps using it are accepted within a second.',
  'key-note-saved': "Key's note saved.",
  'key-ips-saved': "Key's IP allow-list saved. Gateways apply it within a second.",
  'request-approved': 'Request approved.',
  'request-denied': 'Request denied.',
  'approval-approved': 'Call approved: it runs once, as its caller, when they next ask for its status.',
  'approval-denied': 'Call denied: it will not run.',
  'member-added': 'Member added.',
  'member-invited': 'That address has no confirmed svc account yet: we mailed it an invitation, which works for 7 days.',
  'invitation-cancelled': 'Invitation cancelled: its link no longer works.',
  'role-changed': 'Role changed.',
  'member-removed': 'Member removed, with their access through this project.',
  'bot-granted': 'Access granted.',
  'bot-revoked': 'Service account revoked.',
  'bot-keys-set': 'Keys saved: the client authenticates with them now.',
  'bot-keys-removed': 'Keys removed: the client no longer gets tokens.',
  'workload-issuer-added': 'Workload issuer trusted: its workloads matching a rule get tokens now.',
  'workload-issuer-removed': 'Workload issuer removed: its workloads get no new token.',
  'personal-key-revoked': 'Personal key revoked.',
  'password-changed':
    'Password changed. Every other browser signed in to your account was signed out, and your personal keys and the apps you authorized were revoked: sign in again where you need them.',
  'app-revoked': 'App access revoked. Its tokens are refused within a second.',
  'session-ended': 'Session ended.',
  'sessions-ended': 'Every other session ended.',
  'verification-sent': 'We sent a new confirmation link to your address.',
  'verification-held': 'Several confirmation links were sent lately, so no new one was sent: use the latest, or try again in an hour.',
  'email-off': 'Email is off on this server (EMAIL=off), so no confirmation link can be sent.',
  'sso-provider-saved': 'Provider saved: its discovery document was read. The secret is stored sealed and never shown again.',
  'sso-policy-saved': 'Single sign-on policy saved.',
  'sso-domain-claimed': 'Domain claimed: publish the TXT record below, then verify.',
  'sso-domain-verified': 'Domain proven: its addresses now sign in through your provider.',
  'sso-domain-released': 'Domain released.',
  'scim-token-revoked': 'SCIM token revoked: your directory’s requests with it are refused from now on.',
  'webhook-saved': 'Webhook endpoint saved.',
  'client-policy-saved': 'Client policy saved: it applies at the next consent, and applications it refuses lost their access.',
  'client-approved': 'Application approved: the next time someone connects it, they can.',
  'client-denied': 'Application denied: it is refused, and its access to this workspace ended.',
  'webhook-removed': 'Webhook endpoint deleted: nothing more is sent to it.',
  'webhook-test-queued': 'Test event queued: it is sent within a few seconds and shows in the delivery log.',
  'upstream-added': "Server added: its tools are offered to this project's clients at the levels below.",
  'upstream-refreshed': 'Tools read again: nothing new or changed.',
  'upstream-refreshed-flagged':
    'Tools read again: new tools start off, and changed ones are offered as they were until you accept the change (marked below).',
  'upstream-refresh-problem': 'The server was asked for its tools again: see the problem below. Its tools are offered as they were.',
  'upstream-removed': 'Server removed: its tools are no longer offered.',
  'upstream-level-saved': "Tool's level saved. Gateways apply it within a second.",
  'tool-approval-saved': "Tool's approval rule saved: calls it holds wait on the Approvals page. Gateways apply it within a second.",
  'upstream-cost-saved': "Tool's cost saved: each call spends that much of its caller's tool budget. Gateways apply it within a second.",
  'upstream-approval-saved': "Tool's approval rule saved: calls it holds wait on the Approvals page. Gateways apply it within a second.",
  'upstream-tool-on': "Tool turned on: the project's clients are offered it within a second.",
  'upstream-tool-off': 'Tool turned off: it is no longer offered, within a second.',
  'upstream-change-accepted': 'Change accepted: the tool is offered as the server now describes it.',
} as const;
export type Done = keyof typeof DONE;

function flashOf(req: Request): Frame['flash'] {
  const done = str(req.query['done']);
  return Object.hasOwn(DONE, done) ? { kind: 'ok', text: DONE[done as Done] } : undefined;
}

/** A destructive form's second step: only a POST carrying `confirm=yes` acts (docs/dashboard.md "Confirmation"). */
export const confirmed = (req: Request, form: DashboardForm<typeof CONFIRM_FIELDS>) => formOf(req, form).confirm === 'yes';

/** After a POST: back to a page that says what was done (a code in its query, never free text). */
export const back = (res: Response, path: string, done: Done) => res.redirect(303, `${path}?done=${done}`);

/** The shared steps of every dashboard route, bound to its dependencies. */
export function dashboardKit(deps: DashboardDeps) {
  const now = deps.now ?? Date.now;
  const reveals = createReveals(deps.redis);

  /** Who is asking: the session's person (with their own workspace), or a trip to the sign-in page and back. */
  async function actorOf(req: Request, res: Response): Promise<{ actor: Actor; workspace: string } | null> {
    const userId = await deps.web.userOf(req);
    const user = userId ? await deps.accounts.users.get(userId) : null;
    if (!user) {
      res.redirect(303, `/signin?return=${encodeURIComponent(req.method === 'GET' ? req.originalUrl : '/dashboard')}`);
      return null;
    }
    // The session's last second factor: the management layer applies the operations' step-up with it.
    const factorAt = await factorAtOf(deps.redis, req);
    const actor: Actor = {
      kind: 'person',
      userId: user.id,
      label: user.email,
      source: req.ip ?? '',
      requestId: randomUUID(),
      ...(factorAt === undefined ? {} : { factorAt }),
    };
    return { actor, workspace: user.workspace };
  }

  /**
   * The management bucket of the person's workspace, as the management API counts a personal
   * key's requests (docs/management.md "REST"): past it, a 429 page with Retry-After.
   */
  async function admitted(res: Response, workspace: string): Promise<boolean> {
    const count = await countManagementRequest(deps.redis, workspace, now());
    if (count.retryAfter === 0) return true;
    const body = html`<p class="error" role="alert">Too many changes in a minute: your workspace may make ${count.limit} a minute, here and through the API together. Try again in ${count.retryAfter} seconds.</p><nav><a href="/dashboard">Back to the dashboard</a></nav>`;
    render(res, page('Too many changes', body), { refusal: 'too_many', headers: { 'Retry-After': String(count.retryAfter) } });
    return false;
  }

  function refusalPage(res: Response, err: ManagementError): void {
    const body = html`<p class="error" role="alert">${err.message}</p><nav><a href="/dashboard">Back to the dashboard</a></nav>`;
    const title = err.status === 404 ? 'Not found' : err.status === 400 ? 'Check the form' : 'Not allowed';
    render(res, page(title, body), { refusal: pageRefusalOf(err.status) });
  }

  /** A page or form: the person, the CSRF token of a POST, the management bucket, then the handler. */
  const page$ =
    (handler: Handler, opts: Counted = {}) =>
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const asking = await actorOf(req, res);
        if (!asking) return;
        if (req.method === 'POST' && !deps.web.csrfValid(req)) {
          render(res, alertPage('Form expired', 'The form expired. Go back, reload the page and try again.'), { refusal: 'form_expired' });
          return;
        }
        if ((req.method === 'POST' || opts.counted) && !(await admitted(res, asking.workspace))) return;
        await handler(req, res, asking.actor);
      } catch (err) {
        // An operation whose declaration asks for a recent factor: step up, then back to its page.
        if (err instanceof StepUpRequired) return res.redirect(303, stepUpUrl(err.page));
        if (err instanceof ManagementError) return refusalPage(res, err);
        next(err);
      }
    };

  /**
   * The open project of a page that is not a project's: the one its link names (`?project=`), else
   * the one this browser last opened, else the first; always one of the person's, and in
   * `workspace` when the page is a workspace's.
   */
  function currentProject(req: Request, projects: ProjectRow[], workspace?: string): ProjectRow | null {
    const inScope = projects.filter((p) => workspace === undefined || p.workspace === workspace);
    for (const slug of [str(req.query['project']), readCookie(req, PROJECT_COOKIE) ?? '']) {
      const found = slug && inScope.find((p) => p.slug === slug);
      if (found) return found;
    }
    return inScope[0] ?? null;
  }

  function remember(res: Response, slug: string): void {
    res.cookie(PROJECT_COOKIE, slug, {
      httpOnly: true,
      sameSite: 'lax',
      secure: deps.authUrl.startsWith('https:'),
      // Read by the dashboard and by the factor pages in its frame (/factors).
      path: '/',
      maxAge: 30 * 86_400_000,
    });
  }

  /** The frame of a page: the person's projects, the one open, its workspace, the pending badge and any flash. */
  async function frame(req: Request, res: Response, actor: Actor, section: Section, at: At): Promise<Frame> {
    const [projects, owned, person] = await Promise.all([
      deps.management.projectsOf(actor),
      deps.management.workspacesOf(actor),
      actor.kind === 'person' ? deps.accounts.users.get(actor.userId) : null,
    ]);
    const ownWorkspace = person?.workspace ?? owned[0] ?? '';
    // The person's workspaces: their own first, then those of the projects they are a member of.
    const workspaces = [...new Set([ownWorkspace, ...owned, ...projects.map((p) => p.workspace)])]
      .filter(Boolean)
      .map((slug) => ({ slug, own: owned.includes(slug) }));
    const project = at.project ? (projects.find((p) => p.slug === at.project) ?? null) : currentProject(req, projects, at.workspace);
    if (at.project && !project) throw new ManagementError(404, `There is no project ${at.project} you can open.`);
    if (at.project && project) remember(res, project.slug);
    const workspace = at.workspace ?? project?.workspace ?? ownWorkspace;
    let pendingRequests = 0;
    if (project) {
      pendingRequests = await deps.management.pendingRequests(actor, project.slug).catch(() => 0);
    }
    const flash = flashOf(req);
    return {
      csrf: deps.web.csrfToken(req, res),
      email: actor.label,
      projects,
      workspaces,
      ownWorkspace,
      project,
      workspace,
      section,
      pendingRequests,
      ...(flash ? { flash } : {}),
    };
  }

  /**
   * A form's change, and what a refusal of it shows: a 400 from the management layer, or a 409 about
   * one of its fields (an address already invited or already a member), renders the form again with
   * the message and that status; any other failure goes to refusalPage or the error handler.
   */
  async function submit(
    req: Request,
    res: Response,
    actor: Actor,
    form: { section: Section; at: At },
    change: () => Promise<void>,
    again: (f: Frame, err: ManagementError) => SafeHtml | Promise<SafeHtml>,
  ): Promise<void> {
    try {
      await change();
    } catch (err) {
      if (!(err instanceof ManagementError) || !(err.status === 400 || (err.status === 409 && err.field))) throw err;
      const f = await frame(req, res, actor, form.section, form.at);
      render(res, await again(f, err), { refusal: pageRefusalOf(err.status) });
    }
  }

  return { deps, now, page$, frame, submit, reveals, currentProject };
}

export type Kit = ReturnType<typeof dashboardKit>;
