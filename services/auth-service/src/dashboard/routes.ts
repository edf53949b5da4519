/**
 * The dashboard's routes under /dashboard (docs/dashboard.md): every page needs a signed-in
 * session (else the sign-in page, coming back after), every form a valid CSRF token; each request
 * reads as: who is asking, what they asked, the management layer's answer, the page. Nothing here
 * decides who may do what: the backend does, and a refusal becomes a page with its status.
 */
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Accounts, Redis } from '@svc/accounts';
import type { Logger } from '@svc/logger';
import type { WebSessions } from '../http/web-session.ts';
import type { EmailVerification } from '../pages/email-verification.ts';
import { isProfile, profileName } from '../provider/clients.ts';
import { esc, notFoundPage, page } from '../pages/layout.ts';
import { countManagementRequest, ManagementError, streamExport, type Actor, type Management } from '@svc/management';
import { DASHBOARD_CSP, type Frame, type Section } from './frame.ts';
import * as views from './views.ts';

export interface DashboardDeps {
  accounts: Accounts;
  /** Where the management bucket is counted (shared with the management API). */
  redis: Redis;
  web: WebSessions;
  management: Management;
  logger: Logger;
  verification: EmailVerification;
  now?: () => number;
}

type Handler = (req: Request, res: Response, actor: Actor) => Promise<void>;
/** A page that counts in the management bucket: every POST does, and the export (a GET) too. */
type Counted = { counted?: true };

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const param = (req: Request, name: string) => str(req.params[name]);

export function dashboardRoutes(deps: DashboardDeps): Router {
  const router = express.Router();
  const now = deps.now ?? Date.now;
  router.use((_req, res, next) => {
    res.set({ 'Content-Security-Policy': DASHBOARD_CSP, 'Cache-Control': 'no-store' });
    next();
  });
  router.post('*path', express.urlencoded({ extended: false, limit: '16kb' }));

  /** Who is asking: the session's person (with their own workspace), or a trip to the sign-in page and back. */
  async function actorOf(req: Request, res: Response): Promise<{ actor: Actor; workspace: string } | null> {
    const userId = await deps.web.userOf(req);
    const user = userId ? await deps.accounts.users.get(userId) : null;
    if (!user) {
      res.redirect(303, `/signin?return=${encodeURIComponent(req.method === 'GET' ? req.originalUrl : '/dashboard')}`);
      return null;
    }
    const actor: Actor = { kind: 'person', userId: user.id, label: user.email, source: req.ip ?? '', requestId: randomUUID() };
    return { actor, workspace: user.workspace };
  }

  /**
   * The management bucket of the person's workspace, as the management API counts a personal
   * key's requests (docs/management.md "REST"): past it, a 429 page with Retry-After.
   */
  async function admitted(res: Response, workspace: string): Promise<boolean> {
    const count = await countManagementRequest(deps.redis, workspace, now());
    if (count.retryAfter === 0) return true;
    res
      .status(429)
      .set('Retry-After', String(count.retryAfter))
      .type('html')
      .send(
        page(
          'Too many changes',
          `<p class="error" role="alert">Too many changes in a minute: your workspace may make ${count.limit} a minute, here and through the API together. Try again in ${count.retryAfter} seconds.</p><nav><a href="/dashboard">Back to the dashboard</a></nav>`,
        ),
      );
    return false;
  }

  const page$ =
    (handler: Handler, opts: Counted = {}) =>
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const asking = await actorOf(req, res);
        if (!asking) return;
        if (req.method === 'POST' && !deps.web.csrfValid(req)) {
          res
            .status(403)
            .type('html')
            .send(page('Form expired', '<p class="error" role="alert">The form expired. Go back, reload the page and try again.</p>'));
          return;
        }
        if ((req.method === 'POST' || opts.counted) && !(await admitted(res, asking.workspace))) return;
        await handler(req, res, asking.actor);
      } catch (err) {
        if (err instanceof ManagementError) return refusalPage(req, res, err);
        next(err);
      }
    };

  async function frame(
    req: Request,
    res: Response,
    actor: Actor,
    section: Section,
    at: { project?: string; workspace?: string },
  ): Promise<Frame> {
    const projects = await deps.management.projectsOf(actor);
    const project = at.project ? (projects.find((p) => p.slug === at.project) ?? null) : (projects[0] ?? null);
    if (at.project && !project) throw new ManagementError(404, `There is no project ${at.project} you can open.`);
    const workspace = at.workspace ?? project?.workspace ?? (await deps.management.workspacesOf(actor))[0] ?? '';
    let pendingRequests = 0;
    if (project) {
      const r = await deps.management.requests(actor, project.slug).catch(() => null);
      pendingRequests = r?.canDecide ? r.requests.filter((x) => x.status === 'pending').length : 0;
    }
    const flash = flashOf(req);
    return {
      csrf: deps.web.csrfToken(req, res),
      email: actor.label,
      projects,
      project,
      workspace,
      section,
      pendingRequests,
      ...(flash ? { flash } : {}),
    };
  }

  /**
   * A form's change, and what a refusal of it shows: a 400 from the management layer renders the
   * form again (status 400) with the message; any other failure goes to refusalPage or the error
   * handler.
   */
  async function submit(
    req: Request,
    res: Response,
    actor: Actor,
    form: { section: Section; at: { project?: string; workspace?: string } },
    change: () => Promise<void>,
    again: (f: Frame, err: ManagementError) => string | Promise<string>,
  ): Promise<void> {
    try {
      await change();
    } catch (err) {
      if (!(err instanceof ManagementError) || err.status !== 400) throw err;
      const f = await frame(req, res, actor, form.section, form.at);
      res
        .status(400)
        .type('html')
        .send(await again(f, err));
    }
  }

  function refusalPage(req: Request, res: Response, err: ManagementError): void {
    res
      .status(err.status)
      .type('html')
      .send(
        page(
          err.status === 404 ? 'Not found' : 'Not allowed',
          `<p class="error" role="alert">${esc(err.message)}</p><nav><a href="/dashboard">Back to the dashboard</a></nav>`,
        ),
      );
  }

  /** The dashboard's actors are always people (a session cookie); the account pages act on their own account. */
  const personOf = (actor: Actor): string => (actor.kind === 'person' ? actor.userId : '');

  /** After a POST: back to a page that says what was done (a code in its query, never free text). */
  const back = (res: Response, path: string, done: Done) => res.redirect(303, `${path}?done=${done}`);

  const keysPath = (slug: string) => `/dashboard/projects/${encodeURIComponent(slug)}/keys`;

  router.get(
    '/',
    page$(async (req, res, actor) => {
      const projects = await deps.management.projectsOf(actor);
      res.redirect(303, projects[0] ? keysPath(projects[0].slug) : '/dashboard/projects/new');
    }),
  );
  router.get(
    '/switch',
    page$(async (req, res) => {
      res.redirect(303, keysPath(str(req.query['project'])));
    }),
  );

  router.get(
    '/projects/new',
    page$(async (req, res, actor) => {
      const f = await frame(req, res, actor, 'new-project', {});
      res.type('html').send(views.newProjectPage(f, { workspaces: await deps.management.workspacesOf(actor) }));
    }),
  );
  router.post(
    '/projects',
    page$(async (req, res, actor) => {
      const name = str(req.body.name).trim();
      await submit(
        req,
        res,
        actor,
        { section: 'new-project', at: {} },
        async () => {
          const { slug } = await deps.management.createProject(actor, { name, workspace: str(req.body.workspace) });
          back(res, keysPath(slug), 'project-created');
        },
        async (f, err) => views.newProjectPage(f, { workspaces: await deps.management.workspacesOf(actor), error: err.message, name }),
      );
    }),
  );

  async function renderKeys(req: Request, res: Response, actor: Actor, extra: Partial<views.KeysPage> = {}, status = 200): Promise<void> {
    const slug = param(req, 'slug');
    const f = await frame(req, res, actor, 'keys', { project: slug });
    const data = await deps.management.keys(actor, slug);
    res
      .status(status)
      .type('html')
      .send(views.keysPage(f, { ...data, now: now(), ...extra }));
  }

  router.get(
    '/projects/:slug/keys',
    page$((req, res, actor) => renderKeys(req, res, actor)),
  );
  router.post(
    '/projects/:slug/keys',
    page$(async (req, res, actor) => {
      const values = {
        name: str(req.body.name).trim(),
        level: str(req.body.level),
        expires: str(req.body.expires),
        rateLimit: str(req.body.rateLimit).trim(),
      };
      try {
        const created = await deps.management.createKey(actor, param(req, 'slug'), values);
        // The key is in this response only: never in a redirect, a log or a stored page.
        await renderKeys(req, res, actor, { created });
      } catch (err) {
        if (!(err instanceof ManagementError) || err.status !== 400) throw err;
        const field = err.field === 'level' || err.field === 'expires' || err.field === 'rateLimit' ? err.field : 'name';
        await renderKeys(req, res, actor, { error: { field, message: err.message }, values }, 400);
      }
    }),
  );

  async function keyOf(actor: Actor, slug: string, id: string) {
    const key = (await deps.management.keys(actor, slug)).keys.find((k) => k.id === id);
    if (!key) throw new ManagementError(404, 'There is no such key in this project.');
    return key;
  }

  // A key's own pages (confirm a revocation, choose a roll's overlap, set its limit), then their forms.
  for (const [action, view] of [
    ['revoke', views.revokeKeyPage],
    ['roll', views.rollKeyPage],
    ['limit', views.keyLimitPage],
  ] as const) {
    router.get(
      `/projects/:slug/keys/:id/${action}`,
      page$(async (req, res, actor) => {
        const f = await frame(req, res, actor, 'keys', { project: param(req, 'slug') });
        res.type('html').send(view(f, await keyOf(actor, param(req, 'slug'), param(req, 'id'))));
      }),
    );
  }
  router.post(
    '/projects/:slug/keys/:id/revoke',
    page$(async (req, res, actor) => {
      const key = await keyOf(actor, param(req, 'slug'), param(req, 'id'));
      await deps.management.revokeKey(actor, param(req, 'slug'), key.id);
      back(res, keysPath(param(req, 'slug')), 'key-revoked');
    }),
  );
  router.post(
    '/projects/:slug/keys/:id/limit',
    page$(async (req, res, actor) => {
      const slug = param(req, 'slug');
      const value = str(req.body.rateLimit).trim();
      await submit(
        req,
        res,
        actor,
        { section: 'keys', at: { project: slug } },
        async () => {
          await deps.management.setKeyLimit(actor, slug, param(req, 'id'), value);
          back(res, keysPath(slug), 'key-limit-changed');
        },
        async (f, err) => views.keyLimitPage(f, await keyOf(actor, slug, param(req, 'id')), err.message, value),
      );
    }),
  );
  router.post(
    '/projects/:slug/keys/:id/roll',
    page$(async (req, res, actor) => {
      const created = await deps.management.rollKey(actor, param(req, 'slug'), param(req, 'id'), str(req.body.overlap));
      await renderKeys(req, res, actor, { created });
    }),
  );

  router.get(
    '/projects/:slug/requests',
    page$(async (req, res, actor) => {
      const f = await frame(req, res, actor, 'requests', { project: param(req, 'slug') });
      res.type('html').send(views.requestsPage(f, { ...(await deps.management.requests(actor, param(req, 'slug'))), now: now() }));
    }),
  );
  for (const decision of ['approve', 'deny'] as const) {
    router.post(
      `/projects/:slug/requests/:id/${decision}`,
      page$(async (req, res, actor) => {
        const slug = param(req, 'slug');
        await deps.management.decideRequest(
          actor,
          slug,
          param(req, 'id'),
          decision === 'approve' ? { approve: true, level: str(req.body.level) } : { approve: false },
        );
        back(
          res,
          `/dashboard/projects/${encodeURIComponent(slug)}/requests`,
          decision === 'approve' ? 'request-approved' : 'request-denied',
        );
      }),
    );
  }

  const membersPath = (slug: string) => `/dashboard/projects/${encodeURIComponent(slug)}/members`;
  router.get(
    '/projects/:slug/members',
    page$(async (req, res, actor) => {
      const f = await frame(req, res, actor, 'members', { project: param(req, 'slug') });
      res.type('html').send(views.membersPage(f, await deps.management.members(actor, param(req, 'slug'))));
    }),
  );
  router.post(
    '/projects/:slug/members',
    page$(async (req, res, actor) => {
      const slug = param(req, 'slug');
      const email = str(req.body.email).trim();
      await submit(
        req,
        res,
        actor,
        { section: 'members', at: { project: slug } },
        async () => {
          const { invited } = await deps.management.addMember(actor, slug, { email, role: str(req.body.role) });
          back(res, membersPath(slug), invited ? 'member-invited' : 'member-added');
        },
        async (f, err) => views.membersPage(f, { ...(await deps.management.members(actor, slug)), error: err.message, email }),
      );
    }),
  );
  router.post(
    '/projects/:slug/invitations/:id/cancel',
    page$(async (req, res, actor) => {
      await deps.management.cancelInvitation(actor, param(req, 'slug'), param(req, 'id'));
      back(res, membersPath(param(req, 'slug')), 'invitation-cancelled');
    }),
  );
  router.post(
    '/projects/:slug/members/:user/role',
    page$(async (req, res, actor) => {
      await deps.management.setRole(actor, param(req, 'slug'), param(req, 'user'), str(req.body.role));
      back(res, membersPath(param(req, 'slug')), 'role-changed');
    }),
  );
  router.post(
    '/projects/:slug/members/:user/remove',
    page$(async (req, res, actor) => {
      await deps.management.removeMember(actor, param(req, 'slug'), param(req, 'user'));
      back(res, membersPath(param(req, 'slug')), 'member-removed');
    }),
  );

  const botsPath = (ws: string) => `/dashboard/workspaces/${encodeURIComponent(ws)}/service-accounts`;
  async function renderBots(req: Request, res: Response, actor: Actor, newKey?: { bot: string; key: string }) {
    const ws = param(req, 'ws');
    const f = await frame(req, res, actor, 'service-accounts', { workspace: ws });
    res.type('html').send(views.serviceAccountsPage(f, { ...(await deps.management.bots(actor, ws)), ...(newKey ? { newKey } : {}) }));
  }
  router.get(
    '/workspaces/:ws/service-accounts',
    page$((req, res, actor) => renderBots(req, res, actor)),
  );
  router.post(
    '/workspaces/:ws/service-accounts',
    page$(async (req, res, actor) =>
      renderBots(req, res, actor, await deps.management.createBot(actor, param(req, 'ws'), str(req.body.name).trim())),
    ),
  );
  router.post(
    '/workspaces/:ws/service-accounts/:id/grant',
    page$(async (req, res, actor) => {
      await deps.management.grantBot(actor, param(req, 'ws'), param(req, 'id'), str(req.body.project), str(req.body.level));
      back(res, botsPath(param(req, 'ws')), 'bot-granted');
    }),
  );
  router.post(
    '/workspaces/:ws/service-accounts/:id/rotate',
    page$(async (req, res, actor) =>
      renderBots(req, res, actor, await deps.management.rotateBot(actor, param(req, 'ws'), param(req, 'id'))),
    ),
  );
  router.post(
    '/workspaces/:ws/service-accounts/:id/revoke',
    page$(async (req, res, actor) => {
      await deps.management.revokeBot(actor, param(req, 'ws'), param(req, 'id'));
      back(res, botsPath(param(req, 'ws')), 'bot-revoked');
    }),
  );

  router.get(
    '/workspaces/:ws/usage',
    page$(async (req, res, actor) => {
      const f = await frame(req, res, actor, 'usage', { workspace: param(req, 'ws') });
      res.type('html').send(views.usagePage(f, await deps.management.usage(actor, param(req, 'ws'))));
    }),
  );
  router.get(
    '/workspaces/:ws/audit',
    page$(async (req, res, actor) => {
      const f = await frame(req, res, actor, 'audit', { workspace: param(req, 'ws') });
      const action = str(req.query['action']);
      const cursor = str(req.query['cursor']);
      try {
        const data = await deps.management.audit(actor, param(req, 'ws'), { cursor, action });
        res.type('html').send(views.auditPage(f, { ...data, action }));
      } catch (err) {
        // A cursor or action the page never gave (a hand-edited address): the log's first page, with why.
        if (!(err instanceof ManagementError) || err.status !== 400) throw err;
        const data = await deps.management.audit(actor, param(req, 'ws'), {});
        res
          .status(400)
          .type('html')
          .send(views.auditPage(f, { ...data, action: '', error: err.message }));
      }
    }),
  );
  router.get(
    '/workspaces/:ws/audit/export',
    page$(
      async (req, res, actor) => {
        const chunks = await deps.management.auditExport(actor, param(req, 'ws'));
        // A store failure before the first byte reaches the error handler (503 with Retry-After);
        // after it, the body is cut and lacks its closing line (docs/audit.md "Export").
        const outcome = await streamExport(res, chunks, () =>
          res
            .status(200)
            .type('application/x-ndjson')
            .set('Content-Disposition', `attachment; filename="audit-${param(req, 'ws')}.jsonl"`),
        );
        if (!outcome.complete && outcome.error !== undefined) deps.logger.error('audit export cut', { path: req.path, err: outcome.error });
      },
      { counted: true },
    ),
  );

  router.get(
    '/account',
    page$(async (req, res, actor) => {
      const f = await frame(req, res, actor, 'account', {});
      const sessions = await deps.web.list(req, personOf(actor));
      const info = await deps.management.account(actor);
      // First-party apps by their own names; any other name is the app's claim (docs/dashboard.md "Account").
      const apps = info.apps.map((a) => ({
        ...a,
        client: isProfile(a.clientId) ? profileName(a.clientId) : a.client,
        verified: isProfile(a.clientId),
      }));
      const requests = await deps.management.myRequests(actor);
      res.type('html').send(views.accountPage(f, { ...info, apps, sessions, requests, emailOn: deps.verification.enabled }));
    }),
  );
  router.get(
    '/account/password',
    page$(async (req, res, actor) => {
      res.type('html').send(views.changePasswordPage(await frame(req, res, actor, 'account', {}), {}));
    }),
  );
  router.post(
    '/account/password',
    page$(async (req, res, actor) => {
      await submit(
        req,
        res,
        actor,
        { section: 'account', at: {} },
        async () => {
          await deps.management.changePassword(actor, str(req.body.current), str(req.body.password));
          // Whoever else was signed in with the old password is signed out; this browser stays.
          await deps.web.endOthers(req, personOf(actor));
          back(res, '/dashboard/account', 'password-changed');
        },
        (f, err) => views.changePasswordPage(f, { error: { field: err.field ?? 'password', message: err.message } }),
      );
    }),
  );
  router.post(
    '/account/keys/:id/revoke',
    page$(async (req, res, actor) => {
      await deps.management.revokePersonalKey(actor, param(req, 'id'));
      back(res, '/dashboard/account', 'personal-key-revoked');
    }),
  );

  router.post(
    '/account/apps/:id/revoke',
    page$(async (req, res, actor) => {
      await deps.management.revokeApp(actor, param(req, 'id'));
      back(res, '/dashboard/account', 'app-revoked');
    }),
  );
  router.post(
    '/account/sessions/:handle/end',
    page$(async (req, res, actor) => {
      const userId = personOf(actor);
      if (!(await deps.web.endOne(userId, param(req, 'handle')))) throw new ManagementError(404, 'There is no such session of yours.');
      await sessionEnded(actor, '1');
      back(res, '/dashboard/account', 'session-ended');
    }),
  );
  router.post(
    '/account/sessions/end-others',
    page$(async (req, res, actor) => {
      const n = await deps.web.endOthers(req, personOf(actor));
      await sessionEnded(actor, String(n));
      back(res, '/dashboard/account', 'sessions-ended');
    }),
  );
  router.post(
    '/account/verify-email',
    page$(async (req, res, actor) => {
      if (!deps.verification.enabled) return back(res, '/dashboard/account', 'email-off');
      const user = await deps.accounts.users.get(personOf(actor));
      const sent = user ? await deps.verification.send(user) : false;
      back(res, '/dashboard/account', sent || user?.emailVerifiedAt ? 'verification-sent' : 'verification-held');
    }),
  );

  /** One audit entry for sessions the person ended from the account page. */
  async function sessionEnded(actor: Actor, count: string): Promise<void> {
    const user = await deps.accounts.users.get(personOf(actor));
    if (user) await deps.accounts.audit.recordOwn(user, 'session.ended', actor, { sessions: count });
  }

  router.use((req, res) => {
    res.status(404).type('html').send(notFoundPage());
  });
  return router;
}

/** What a POST did, said on the page it returns to. Fixed texts: a link cannot put words on our page. */
const DONE = {
  'project-created': 'Project created.',
  'key-revoked': 'Key revoked. Apps using it are refused within a second.',
  'key-limit-changed': "Key's rate limit saved. Gateways apply it within a second.",
  'request-approved': 'Request approved.',
  'request-denied': 'Request denied.',
  'member-added': 'Member added.',
  'member-invited': 'That address has no confirmed svc account yet: we mailed it an invitation, which works for 7 days.',
  'invitation-cancelled': 'Invitation cancelled: its link no longer works.',
  'role-changed': 'Role changed.',
  'member-removed': 'Member removed, with their access through this project.',
  'bot-granted': 'Access granted.',
  'bot-revoked': 'Service account revoked.',
  'personal-key-revoked': 'Personal key revoked.',
  'password-changed':
    'Password changed. Every other browser signed in to your account was signed out, and your personal keys and the apps you authorized were revoked: sign in again where you need them.',
  'app-revoked': 'App access revoked. Its tokens are refused within a second.',
  'session-ended': 'Session ended.',
  'sessions-ended': 'Every other session ended.',
  'verification-sent': 'We sent a new confirmation link to your address.',
  'verification-held': 'Several confirmation links were sent lately, so no new one was sent: use the latest, or try again in an hour.',
  'email-off': 'Email is off on this server (EMAIL=off), so no confirmation link can be sent.',
} as const;
type Done = keyof typeof DONE;

function flashOf(req: Request): Frame['flash'] {
  const done = str(req.query['done']);
  return Object.hasOwn(DONE, done) ? { kind: 'ok', text: DONE[done as Done] } : undefined;
}
