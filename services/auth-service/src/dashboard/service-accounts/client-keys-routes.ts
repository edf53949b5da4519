/**
 * Workspace > Service accounts > OAuth client routes (docs/dashboard.md): show a service account's
 * client, set its public keys (a pasted JWK Set or a JWKS URL), remove them (confirmed first).
 */
import { JsonBoundsError, parseJson } from '@svc/bounds';
import type { Request, Response, Router } from 'express';
import { ManagementError, type Actor } from '@svc/management';
import { render } from '../../ui/html.ts';
import { CONFIRM_FIELDS, defineForm, formOf } from '../form.ts';
import { back, confirmed, param, type Kit } from '../kit.ts';
import { confirmPage } from '../parts.ts';
import { clientKeysPage, removeClientKeysEnds } from './client-keys-view.ts';

const botsPath = (ws: string) => `/dashboard/workspaces/${encodeURIComponent(ws)}/service-accounts`;
const keysPath = (ws: string, id: string) => `${botsPath(ws)}/${encodeURIComponent(id)}/client-keys`;

/** The page's forms (docs/dashboard.md "Forms"): the pasted text is the store's to judge, at its field. */
export const CLIENT_KEY_FORMS = {
  set: defineForm('setServiceAccountClientKeys', '/workspaces/:ws/service-accounts/:id/client-keys', {
    type: 'object',
    properties: { jwks: { type: 'string' }, jwks_uri: { type: 'string' } },
  }),
  remove: defineForm('removeServiceAccountClientKeys', '/workspaces/:ws/service-accounts/:id/client-keys/remove', CONFIRM_FIELDS),
} as const;

/** The pasted JWK Set as JSON, or the refusal naming it. */
function pastedJwks(text: string): unknown {
  try {
    return parseJson(text);
  } catch (err) {
    if (err instanceof JsonBoundsError) throw new ManagementError(400, `The JWK Set is refused: ${err.message}.`, 'jwks');
    throw new ManagementError(400, 'The JWK Set is not JSON: paste {"keys": [...]} with the public keys.', 'jwks');
  }
}

export function clientKeysRoutes(router: Router, { deps, page$, frame }: Kit): void {
  async function nameOf(actor: Actor, ws: string, id: string): Promise<string> {
    const bot = (await deps.management.listServiceAccounts(actor, ws)).bots.find((b) => b.id === id);
    if (!bot) throw new ManagementError(404, 'There is no such service account in this workspace.');
    return bot.name;
  }

  async function show(req: Request, res: Response, actor: Actor) {
    const [ws, id] = [param(req, 'ws'), param(req, 'id')];
    const client = await deps.management.getServiceAccountClient(actor, ws, id);
    const f = await frame(req, res, actor, 'service-accounts', { workspace: ws });
    render(res, clientKeysPage(f, { name: await nameOf(actor, ws, id), client }, botsPath(ws)));
  }

  async function confirmRemove(req: Request, res: Response, actor: Actor) {
    const [ws, id] = [param(req, 'ws'), param(req, 'id')];
    const name = await nameOf(actor, ws, id);
    const f = await frame(req, res, actor, 'service-accounts', { workspace: ws });
    const action = `${keysPath(ws, id)}/remove`;
    render(
      res,
      confirmPage(f, {
        title: 'Remove OAuth client keys',
        ends: removeClientKeysEnds(name),
        button: 'Remove keys',
        action,
        cancel: keysPath(ws, id),
      }),
    );
  }

  router.get('/workspaces/:ws/service-accounts/:id/client-keys', page$(show));
  router.post(
    CLIENT_KEY_FORMS.set.path,
    page$(async (req, res, actor) => {
      const [ws, id] = [param(req, 'ws'), param(req, 'id')];
      const form = formOf(req, CLIENT_KEY_FORMS.set);
      const [jwks, jwksUri] = [(form.jwks ?? '').trim(), (form.jwks_uri ?? '').trim()];
      const input = { ...(jwks ? { jwks: pastedJwks(jwks) } : {}), ...(jwksUri ? { jwksUri } : {}) };
      await deps.management.setServiceAccountClientKeys(actor, ws, id, input);
      back(res, keysPath(ws, id), 'bot-keys-set');
    }),
  );
  router.get('/workspaces/:ws/service-accounts/:id/client-keys/remove', page$(confirmRemove));
  router.post(
    CLIENT_KEY_FORMS.remove.path,
    page$(async (req, res, actor) => {
      if (!confirmed(req, CLIENT_KEY_FORMS.remove)) return confirmRemove(req, res, actor);
      await deps.management.removeServiceAccountClientKeys(actor, param(req, 'ws'), param(req, 'id'));
      back(res, keysPath(param(req, 'ws'), param(req, 'id')), 'bot-keys-removed');
    }),
  );
}
