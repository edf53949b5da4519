/**
 * Workspace > Service accounts routes (docs/dashboard.md): create (the key revealed once), grant,
 * a new key and revoke (each confirmed first).
 */
import type { Request, Response, Router } from 'express';
import { ManagementError, type Actor } from '@svc/management';
import { render } from '../../ui/html.ts';
import { formOf } from '../form.ts';
import { back, confirmed, param, type Kit } from '../kit.ts';
import { confirmPage } from '../parts.ts';
import { BOT_FORMS } from './forms.ts';
import { revokeBotEnds, rotateBotPage, serviceAccountsPage } from './view.ts';

const botsPath = (ws: string) => `/dashboard/workspaces/${encodeURIComponent(ws)}/service-accounts`;

/** What a service account's reveal holds: its new key and the workspace it is in. */
interface Revealed {
  workspace: string;
  newKey: { bot: string; key: string; oldKeyUntil?: number | null };
}

export function serviceAccountsRoutes(router: Router, { deps, page$, frame, reveals }: Kit): void {
  async function renderBots(req: Request, res: Response, actor: Actor, shown: { newKey?: Revealed['newKey']; gone?: true } = {}) {
    const ws = param(req, 'ws');
    const f = await frame(req, res, actor, 'service-accounts', { workspace: ws });
    render(res, serviceAccountsPage(f, { ...(await deps.management.listServiceAccounts(actor, ws)), ...shown }));
  }

  /** Post-redirect-get (docs/dashboard.md "A key is shown once"): the key waits for one read by this session. */
  async function reveal(req: Request, res: Response, newKey: Revealed['newKey']): Promise<void> {
    const ws = param(req, 'ws');
    const id = await reveals.put(req, { workspace: ws, newKey } satisfies Revealed);
    res.redirect(303, `${botsPath(ws)}/reveal/${id}`);
  }

  /** The confirmation page (its GET, or a POST without `confirm=yes`) says what the action ends (docs/dashboard.md "Confirmation"). */
  async function confirmFirst(req: Request, res: Response, actor: Actor, step: 'rotate' | 'revoke'): Promise<void> {
    const ws = param(req, 'ws');
    const bot = (await deps.management.listServiceAccounts(actor, ws)).bots.find((b) => b.id === param(req, 'id'));
    if (!bot) throw new ManagementError(404, 'There is no such service account in this workspace.');
    const f = await frame(req, res, actor, 'service-accounts', { workspace: ws });
    const action = `${botsPath(ws)}/${encodeURIComponent(bot.id)}/${step}`;
    // docs/management.md "Service accounts": a revoked one stays revoked; nothing to confirm.
    if (bot.revoked)
      throw new ManagementError(409, `The service account ${bot.name} is revoked: it gets no new key. Create a new one instead.`);
    if (step === 'rotate') return render(res, rotateBotPage(f, bot, action, botsPath(ws)));
    const page = { title: 'Revoke service account', ends: revokeBotEnds(bot), button: 'Revoke service account' };
    render(res, confirmPage(f, { ...page, action, cancel: botsPath(ws) }));
  }

  router.get(
    '/workspaces/:ws/service-accounts',
    page$((req, res, actor) => renderBots(req, res, actor)),
  );
  router.get(
    '/workspaces/:ws/service-accounts/reveal/:id',
    page$(async (req, res, actor) => {
      // Sealed by reveal() above and authenticated (AES-GCM), so its shape is the one written there.
      const taken = (await reveals.take(req, param(req, 'id'))) as Revealed | null;
      await renderBots(req, res, actor, taken?.workspace === param(req, 'ws') ? { newKey: taken.newKey } : { gone: true });
    }),
  );
  router.post(
    BOT_FORMS.create.path,
    page$(async (req, res, actor) =>
      reveal(req, res, await deps.management.createServiceAccount(actor, param(req, 'ws'), formOf(req, BOT_FORMS.create).name.trim())),
    ),
  );
  router.post(
    BOT_FORMS.grant.path,
    page$(async (req, res, actor) => {
      const form = formOf(req, BOT_FORMS.grant);
      await deps.management.grantServiceAccount(actor, param(req, 'ws'), param(req, 'id'), { project: form.project, level: form.level });
      back(res, botsPath(param(req, 'ws')), 'bot-granted');
    }),
  );
  for (const step of ['rotate', 'revoke'] as const) {
    router.get(
      `/workspaces/:ws/service-accounts/:id/${step}`,
      page$((req, res, actor) => confirmFirst(req, res, actor, step)),
    );
  }
  router.post(
    BOT_FORMS.rotate.path,
    page$(async (req, res, actor) => {
      const form = formOf(req, BOT_FORMS.rotate);
      if (form.confirm !== 'yes') return confirmFirst(req, res, actor, 'rotate');
      await reveal(req, res, await deps.management.rotateServiceAccount(actor, param(req, 'ws'), param(req, 'id'), form.overlap));
    }),
  );
  router.post(
    BOT_FORMS.revoke.path,
    page$(async (req, res, actor) => {
      if (!confirmed(req, BOT_FORMS.revoke)) return confirmFirst(req, res, actor, 'revoke');
      await deps.management.revokeServiceAccount(actor, param(req, 'ws'), param(req, 'id'));
      back(res, botsPath(param(req, 'ws')), 'bot-revoked');
    }),
  );
}
