/**
 * Workspace > SCIM provisioning routes (docs/dashboard.md): the management layer's SCIM
 * operations, so the rules they declare (owner only, step-up, a confirmed address) are the API's.
 * A new token is revealed once, after a redirect, as a new key is ("A key is shown once").
 */
import type { Request, Response, Router } from 'express';
import { ManagementError, type Actor } from '@svc/management';
import { render } from '../../ui/html.ts';
import { back, confirmed, param, type Kit } from '../kit.ts';
import { confirmPage } from '../parts.ts';
import { SCIM_FORMS } from './forms.ts';
import { revokeEnds, scimPage, scimPath } from './view.ts';

interface Revealed {
  workspace: string;
  token: string;
}

export function scimRoutes(router: Router, { deps, page$, frame, reveals }: Kit): void {
  const m = deps.management;
  async function show(req: Request, res: Response, actor: Actor, shown: { token?: string; gone?: true } = {}) {
    const ws = param(req, 'ws');
    const view = await m.scimSettings(actor, ws);
    const f = await frame(req, res, actor, 'scim', { workspace: ws });
    render(res, scimPage(f, { view, ...shown }));
  }

  router.get(
    '/workspaces/:ws/scim',
    page$((req, res, actor) => show(req, res, actor)),
  );
  router.get(
    '/workspaces/:ws/scim/reveal/:id',
    page$(async (req, res, actor) => {
      // Sealed by the create route below and authenticated (AES-GCM), so its shape is the one written there.
      const taken = (await reveals.take(req, param(req, 'id'))) as Revealed | null;
      await show(req, res, actor, taken?.workspace === param(req, 'ws') ? { token: taken.token } : { gone: true });
    }),
  );
  router.post(
    SCIM_FORMS.create.path,
    page$(async (req, res, actor) => {
      const ws = param(req, 'ws');
      const made = await m.createScimToken(actor, ws);
      const id = await reveals.put(req, { workspace: ws, token: made.token } satisfies Revealed);
      res.redirect(303, scimPath(ws, `/reveal/${id}`));
    }),
  );
  router.get(
    SCIM_FORMS.revoke.path,
    page$(async (req, res, actor) => {
      const [ws, id] = [param(req, 'ws'), param(req, 'id')];
      const token = (await m.scimSettings(actor, ws)).tokens.find((t) => t.id === id);
      if (!token) throw new ManagementError(404, 'This workspace has no such SCIM token.');
      const f = await frame(req, res, actor, 'scim', { workspace: ws });
      render(
        res,
        confirmPage(f, {
          title: 'Revoke SCIM token',
          ends: revokeEnds(token.prefix),
          action: scimPath(ws, `/tokens/${encodeURIComponent(id)}/revoke`),
          button: 'Revoke token',
          cancel: scimPath(ws),
        }),
      );
    }),
  );
  router.post(
    SCIM_FORMS.revoke.path,
    page$(async (req, res, actor) => {
      const [ws, id] = [param(req, 'ws'), param(req, 'id')];
      if (!confirmed(req, SCIM_FORMS.revoke)) return void res.redirect(303, scimPath(ws));
      await m.revokeScimToken(actor, ws, id);
      back(res, scimPath(ws), 'scim-token-revoked');
    }),
  );
}
