/** Workspace > Single sign-on routes (docs/dashboard.md); the settings service decides who may change what. */
import type { Request, Response, Router } from 'express';
import type { Actor } from '@svc/management';
import { render } from '../../pages/html.ts';
import { alertPage } from '../../pages/layout.ts';
import { SsoError, type SettingsActor } from '@svc/sso';
import { requireRecentFactor } from '../../factors/step-up.ts';
import { formOf } from '../form.ts';
import { back, param, personOf, type Done, type Kit } from '../kit.ts';
import { SSO_FORMS } from './forms.ts';
import { ssoPage, ssoPath } from './view.ts';

const settingsActor = (actor: Actor): SettingsActor => ({ userId: personOf(actor), email: actor.label, source: actor.source });

/** `group=ROLE` lines; a line without `=` is a group with an empty role (refused by the settings). */
function groupLines(text: string): { group: string; role: string }[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const i = line.lastIndexOf('=');
      return i < 0
        ? { group: line, role: '' }
        : {
            group: line.slice(0, i),
            role: line
              .slice(i + 1)
              .trim()
              .toUpperCase(),
          };
    });
}

export function ssoRoutes(router: Router, { deps, page$, frame }: Kit): void {
  const sso = deps.sso;
  const show = async (req: Request, res: Response, actor: Actor, error?: SsoError) => {
    const ws = param(req, 'ws');
    const f = await frame(req, res, actor, 'sso', { workspace: ws });
    render(res, ssoPage(f, await sso.view(settingsActor(actor), ws), error?.message), { status: error?.status ?? 200 });
  };
  /** A form's change; a refusal shows the page again with the reason (its status), or a plain page when it cannot be shown. */
  const change = (act: (req: Request, actor: SettingsActor, ws: string) => Promise<unknown>, done: Done) =>
    page$(async (req, res, actor) => {
      const ws = param(req, 'ws');
      try {
        await act(req, settingsActor(actor), ws);
      } catch (err) {
        if (!(err instanceof SsoError)) throw err;
        deps.logger.info('sso settings refused', { workspace: ws, problem: err.message, detail: err.detail });
        if (err.status === 403 || err.status === 404) return refuse(res, err);
        return show(req, res, actor, err);
      }
      back(res, ssoPath(ws), done);
    });
  const refuse = (res: Response, err: SsoError) => render(res, alertPage('Not allowed', err.message), { status: err.status });

  // Changing single sign-on needs a second factor used within minutes (docs/auth-service.md "Step-up").
  const stepUp = requireRecentFactor(
    { redis: deps.redis, accounts: deps.accounts, userOf: (req) => deps.web.userOf(req) },
    { backTo: (req) => ssoPath(param(req, 'ws')) },
  );
  router.get(
    '/workspaces/:ws/sso',
    page$(async (req, res, actor) => {
      try {
        await show(req, res, actor);
      } catch (err) {
        if (!(err instanceof SsoError)) throw err;
        refuse(res, err);
      }
    }),
  );
  router.post(
    SSO_FORMS.provider.path,
    stepUp,
    change((req, a, ws) => {
      const form = formOf(req, SSO_FORMS.provider);
      return sso.configureProvider(a, ws, { issuer: form.issuer, clientId: form.client_id, secret: form.client_secret ?? '' });
    }, 'sso-provider-saved'),
  );
  router.post(
    SSO_FORMS.policy.path,
    stepUp,
    change((req, a, ws) => {
      const form = formOf(req, SSO_FORMS.policy);
      return sso.setPolicy(a, ws, {
        defaultRole: form.default_role,
        required: form.required === '1',
        groupRoles: groupLines(form.group_roles ?? ''),
      });
    }, 'sso-policy-saved'),
  );
  router.post(
    SSO_FORMS.claim.path,
    stepUp,
    change((req, a, ws) => sso.claimDomain(a, ws, formOf(req, SSO_FORMS.claim).domain), 'sso-domain-claimed'),
  );
  router.post(
    SSO_FORMS.verify.path,
    stepUp,
    change((req, a, ws) => sso.verifyDomain(a, ws, formOf(req, SSO_FORMS.verify).domain), 'sso-domain-verified'),
  );
  router.post(
    SSO_FORMS.release.path,
    stepUp,
    change((req, a, ws) => sso.releaseDomain(a, ws, formOf(req, SSO_FORMS.release).domain), 'sso-domain-released'),
  );
}
