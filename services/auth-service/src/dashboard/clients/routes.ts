/**
 * Workspace > Clients routes (docs/management.md "Client governance"): the management layer's
 * client governance operations, so the rules they declare (owner only, step-up, a confirmed
 * address) are the API's.
 */
import type { Request, Response, Router } from 'express';
import { ManagementError, type Actor } from '@svc/management';
import type { ClientRule } from '@svc/accounts';
import { render } from '../../ui/html.ts';
import { formOf } from '../form.ts';
import { back, param, type Kit } from '../kit.ts';
import { CLIENT_FORMS } from './forms.ts';
import { clientsPage, clientsPath } from './view.ts';

const KINDS: readonly string[] = ['client_id', 'host', 'name'];

/** The lines of a list field as rules; a line of another kind is a 400 naming the field. */
function rulesOf(text: string | undefined, field: 'allow' | 'deny'): ClientRule[] {
  return (text ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const space = line.indexOf(' ');
      const [kind, value] = space < 0 ? [line, ''] : [line.slice(0, space), line.slice(space + 1).trim()];
      if (!KINDS.includes(kind) || !value)
        throw new ManagementError(400, `"${line}" is not a rule: write client_id, host or name, a space, then the value.`, field);
      return { kind: kind as ClientRule['kind'], value };
    });
}

export function clientsRoutes(router: Router, { deps, now, page$, frame, submit }: Kit): void {
  const m = deps.management;

  async function show(req: Request, res: Response, actor: Actor) {
    const ws = param(req, 'ws');
    const [policy, approvals] = [await m.clientPolicy(actor, ws), await m.listClientApprovals(actor, ws)];
    const f = await frame(req, res, actor, 'clients', { workspace: ws });
    render(res, clientsPage(f, { policy, approvals, now: now() }));
  }

  router.get('/workspaces/:ws/clients', page$(show));

  router.post(
    CLIENT_FORMS.policy.path,
    page$(async (req, res, actor) => {
      const ws = param(req, 'ws');
      await submit(
        req,
        res,
        actor,
        { section: 'clients', at: { workspace: ws } },
        async () => {
          const form = formOf(req, CLIENT_FORMS.policy);
          await m.setClientPolicy(actor, ws, { mode: form.mode, allow: rulesOf(form.allow, 'allow'), deny: rulesOf(form.deny, 'deny') });
          back(res, clientsPath(ws), 'client-policy-saved');
        },
        async (f, err) =>
          clientsPage(f, {
            policy: await m.clientPolicy(actor, ws),
            approvals: await m.listClientApprovals(actor, ws),
            now: now(),
            error: { message: err.message, field: err.field },
          }),
      );
    }),
  );

  for (const decision of ['approve', 'deny'] as const) {
    router.post(
      CLIENT_FORMS[decision].path,
      page$(async (req, res, actor) => {
        const ws = param(req, 'ws');
        const form = decision === 'approve' ? CLIENT_FORMS.approve : CLIENT_FORMS.deny;
        const client: string = formOf(req, form).client;
        await (decision === 'approve' ? m.approveClient(actor, ws, client) : m.denyClient(actor, ws, client));
        back(res, clientsPath(ws), decision === 'approve' ? 'client-approved' : 'client-denied');
      }),
    );
  }
}
