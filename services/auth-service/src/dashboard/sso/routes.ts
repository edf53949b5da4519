/**
 * Workspace > Single sign-on routes (docs/dashboard.md): the management layer's SSO operations, so
 * the rules they declare (owner only, step-up, a confirmed address) are the API's.
 */
import type { Request, Response, Router } from 'express';
import { samlServiceProvider } from '@svc/sso';
import { ManagementError, StepUpRequired, type Actor, type Management } from '@svc/management';
import { ROUTES } from '../../http/routes.ts';
import { render } from '../../ui/html.ts';
import { alertPage } from '../../ui/layout.ts';
import { formOf } from '../form.ts';
import { back, param, type Done, type Kit } from '../kit.ts';
import { SSO_FORMS } from './forms.ts';
import { ssoPage, ssoPath } from './view.ts';
import { pageRefusalOf } from '@svc/errors';

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
  const sso: Management = deps.management;
  const show = async (req: Request, res: Response, actor: Actor, error?: ManagementError) => {
    const ws = param(req, 'ws');
    const f = await frame(req, res, actor, 'sso', { workspace: ws });
    const callback = new URL(ROUTES.ssoCallback.path, deps.authUrl).href;
    const sp = samlServiceProvider(deps.authUrl, ws);
    render(
      res,
      ssoPage(f, await sso.ssoSettings(actor, ws), { callback, sp }, error?.message),
      error ? { refusal: pageRefusalOf(error.status) } : {},
    );
  };
  /** A form's change; a refusal shows the page again with the reason (its status), or a plain page when it cannot be shown. */
  const change = (act: (req: Request, actor: Actor, ws: string) => Promise<unknown>, done: Done) =>
    page$(async (req, res, actor) => {
      const ws = param(req, 'ws');
      try {
        await act(req, actor, ws);
      } catch (err) {
        if (!(err instanceof ManagementError) || err instanceof StepUpRequired) throw err;
        deps.logger.info('sso settings refused', { workspace: ws, problem: err.message });
        if (err.status === 403 || err.status === 404) return refuse(res, err);
        return show(req, res, actor, err);
      }
      back(res, ssoPath(ws), done);
    });
  const refuse = (res: Response, err: ManagementError) =>
    render(res, alertPage('Not allowed', err.message), { refusal: pageRefusalOf(err.status) });
  router.get(
    '/workspaces/:ws/sso',
    page$(async (req, res, actor) => {
      try {
        await show(req, res, actor);
      } catch (err) {
        if (!(err instanceof ManagementError)) throw err;
        refuse(res, err);
      }
    }),
  );
  router.post(
    SSO_FORMS.provider.path,
    change((req, a, ws) => {
      const form = formOf(req, SSO_FORMS.provider);
      return sso.configureSsoProvider(a, ws, { issuer: form.issuer, clientId: form.client_id, secret: form.client_secret ?? '' });
    }, 'sso-provider-saved'),
  );
  router.post(
    SSO_FORMS.saml.path,
    change((req, a, ws) => {
      const form = formOf(req, SSO_FORMS.saml);
      return sso.configureSsoProvider(a, ws, {
        kind: 'saml',
        saml: {
          metadataXml: form.metadata_xml ?? '',
          entityId: form.entity_id ?? '',
          ssoUrl: form.sso_url ?? '',
          certificate: form.certificate ?? '',
          wantResponseSigned: form.want_response_signed === '1',
          emailAttribute: form.email_attribute ?? '',
          groupsAttribute: form.groups_attribute ?? '',
        },
      });
    }, 'sso-provider-saved'),
  );
  router.post(
    SSO_FORMS.policy.path,
    change((req, a, ws) => {
      const form = formOf(req, SSO_FORMS.policy);
      return sso.setSsoPolicy(a, ws, {
        defaultRole: form.default_role,
        required: form.required === '1',
        groupRoles: groupLines(form.group_roles ?? ''),
      });
    }, 'sso-policy-saved'),
  );
  router.post(
    SSO_FORMS.claim.path,
    change((req, a, ws) => sso.claimSsoDomain(a, ws, formOf(req, SSO_FORMS.claim).domain), 'sso-domain-claimed'),
  );
  router.post(
    SSO_FORMS.verify.path,
    change((req, a, ws) => sso.verifySsoDomain(a, ws, formOf(req, SSO_FORMS.verify).domain), 'sso-domain-verified'),
  );
  router.post(
    SSO_FORMS.release.path,
    change((req, a, ws) => sso.releaseSsoDomain(a, ws, formOf(req, SSO_FORMS.release).domain), 'sso-domain-released'),
  );
}
