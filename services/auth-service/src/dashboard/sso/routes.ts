/** Workspace > Single sign-on routes (docs/dashboard.md); the settings service decides who may change what. */
import type { Request, Response, Router } from 'express';
import type { Actor } from '@svc/management';
import { render } from '../../pages/html.ts';
import { alertPage } from '../../pages/layout.ts';
import { SsoError } from '../../sso/errors.ts';
import type { SettingsActor } from '../../sso/settings.ts';
import { back, field, param, personOf, type Done, type Kit } from '../kit.ts';
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
    '/workspaces/:ws/sso/provider',
    change(
      (req, a, ws) =>
        sso.configureProvider(a, ws, {
          issuer: field(req, 'issuer'),
          clientId: field(req, 'client_id'),
          secret: field(req, 'client_secret'),
        }),
      'sso-provider-saved',
    ),
  );
  router.post(
    '/workspaces/:ws/sso/policy',
    change(
      (req, a, ws) =>
        sso.setPolicy(a, ws, {
          defaultRole: field(req, 'default_role'),
          required: field(req, 'required') === '1',
          groupRoles: groupLines(field(req, 'group_roles')),
        }),
      'sso-policy-saved',
    ),
  );
  router.post(
    '/workspaces/:ws/sso/domains',
    change((req, a, ws) => sso.claimDomain(a, ws, field(req, 'domain')), 'sso-domain-claimed'),
  );
  router.post(
    '/workspaces/:ws/sso/domains/verify',
    change((req, a, ws) => sso.verifyDomain(a, ws, field(req, 'domain')), 'sso-domain-verified'),
  );
  router.post(
    '/workspaces/:ws/sso/domains/release',
    change((req, a, ws) => sso.releaseDomain(a, ws, field(req, 'domain')), 'sso-domain-released'),
  );
}
