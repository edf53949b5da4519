/** Workspace > Service accounts routes (docs/dashboard.md): create (the key shown once), grant, a new key, revoke. */
import type { Request, Response, Router } from 'express';
import type { Actor } from '@svc/management';
import { render } from '../../pages/html.ts';
import { back, field, param, type Kit } from '../kit.ts';
import { serviceAccountsPage } from './view.ts';

const botsPath = (ws: string) => `/dashboard/workspaces/${encodeURIComponent(ws)}/service-accounts`;

export function serviceAccountsRoutes(router: Router, { deps, page$, frame }: Kit): void {
  async function renderBots(req: Request, res: Response, actor: Actor, newKey?: { bot: string; key: string }) {
    const ws = param(req, 'ws');
    const f = await frame(req, res, actor, 'service-accounts', { workspace: ws });
    render(res, serviceAccountsPage(f, { ...(await deps.management.bots(actor, ws)), ...(newKey ? { newKey } : {}) }));
  }
  router.get(
    '/workspaces/:ws/service-accounts',
    page$((req, res, actor) => renderBots(req, res, actor)),
  );
  router.post(
    '/workspaces/:ws/service-accounts',
    page$(async (req, res, actor) =>
      renderBots(req, res, actor, await deps.management.createBot(actor, param(req, 'ws'), field(req, 'name').trim())),
    ),
  );
  router.post(
    '/workspaces/:ws/service-accounts/:id/grant',
    page$(async (req, res, actor) => {
      await deps.management.grantBot(actor, param(req, 'ws'), param(req, 'id'), field(req, 'project'), field(req, 'level'));
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
}
