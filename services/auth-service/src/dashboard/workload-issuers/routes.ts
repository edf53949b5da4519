/**
 * Workspace > Service accounts > Workload identity routes (docs/dashboard.md,
 * docs/workload-identity.md): list, add (a pasted JWK Set or a JWKS URL, rules one per line),
 * remove (confirmed first). The workspace's owner only, as the operations declare.
 */
import { parseRuleSpecs, type WorkloadIssuerKind } from '@svc/accounts/workload-rules.ts';
import { JsonBoundsError, parseJson } from '@svc/bounds';
import type { Request, Response, Router } from 'express';
import { ManagementError, type Actor } from '@svc/management';
import { render } from '../../ui/html.ts';
import { CONFIRM_FIELDS, defineForm, formOf } from '../form.ts';
import { back, confirmed, param, type Kit } from '../kit.ts';
import { confirmPage } from '../parts.ts';
import { removeIssuerEnds, workloadIssuersPage } from './view.ts';

const issuersPath = (ws: string) => `/dashboard/workspaces/${encodeURIComponent(ws)}/workload-issuers`;

/** The page's forms (docs/dashboard.md "Forms"): the pasted text is the store's to judge, at its field. */
export const WORKLOAD_ISSUER_FORMS = {
  add: defineForm('addWorkloadIssuer', '/workspaces/:ws/workload-issuers', {
    type: 'object',
    properties: {
      kind: { type: 'string' },
      issuer: { type: 'string' },
      audience: { type: 'string' },
      jwks: { type: 'string' },
      jwks_uri: { type: 'string' },
      rules: { type: 'string' },
    },
  }),
  remove: defineForm('removeWorkloadIssuer', '/workspaces/:ws/workload-issuers/:id/remove', CONFIRM_FIELDS),
} as const;

function pastedJwks(text: string): unknown {
  try {
    return parseJson(text);
  } catch (err) {
    if (err instanceof JsonBoundsError) throw new ManagementError(400, `The JWK Set is refused: ${err.message}.`, 'jwks');
    throw new ManagementError(400, 'The JWK Set is not JSON: paste {"keys": [...]} with the public keys.', 'jwks');
  }
}

function rulesOf(text: string) {
  try {
    return parseRuleSpecs(text.split(/\r?\n/).join(';'));
  } catch (err) {
    throw new ManagementError(400, `The rules are not readable: ${(err as Error).message}.`, 'rules');
  }
}

export function workloadIssuersRoutes(router: Router, { deps, page$, frame }: Kit): void {
  async function show(req: Request, res: Response, actor: Actor) {
    const ws = param(req, 'ws');
    const issuers = await deps.management.listWorkloadIssuers(actor, ws);
    const { bots } = await deps.management.listServiceAccounts(actor, ws);
    const f = await frame(req, res, actor, 'service-accounts', { workspace: ws });
    const accounts = bots.filter((b) => !b.revoked).map((b) => ({ id: b.id, name: b.name }));
    render(res, workloadIssuersPage(f, { issuers, accounts, tokenEndpoint: `${deps.authUrl}/api/oauth/token`, audience: deps.authUrl }));
  }

  async function confirmRemove(req: Request, res: Response, actor: Actor) {
    const [ws, id] = [param(req, 'ws'), param(req, 'id')];
    const issuer = (await deps.management.listWorkloadIssuers(actor, ws)).find((w) => w.id === id);
    if (!issuer) throw new ManagementError(404, 'This workspace trusts no such workload issuer.');
    const f = await frame(req, res, actor, 'service-accounts', { workspace: ws });
    const action = `${issuersPath(ws)}/${encodeURIComponent(id)}/remove`;
    render(
      res,
      confirmPage(f, {
        title: 'Stop trusting a workload issuer',
        ends: removeIssuerEnds(issuer),
        button: 'Remove',
        action,
        cancel: issuersPath(ws),
      }),
    );
  }

  router.get('/workspaces/:ws/workload-issuers', page$(show));
  router.post(
    WORKLOAD_ISSUER_FORMS.add.path,
    page$(async (req, res, actor) => {
      const ws = param(req, 'ws');
      const form = formOf(req, WORKLOAD_ISSUER_FORMS.add);
      const text = (name: 'kind' | 'issuer' | 'audience' | 'jwks' | 'jwks_uri' | 'rules') => {
        const value: unknown = form[name];
        return typeof value === 'string' ? value.trim() : '';
      };
      const input = {
        kind: text('kind') as WorkloadIssuerKind,
        rules: rulesOf(text('rules')),
        ...(text('issuer') ? { issuer: text('issuer') } : {}),
        ...(text('audience') ? { audience: text('audience') } : {}),
        ...(text('jwks') ? { jwks: pastedJwks(text('jwks')) } : {}),
        ...(text('jwks_uri') ? { jwksUri: text('jwks_uri') } : {}),
      };
      await deps.management.addWorkloadIssuer(actor, ws, input);
      back(res, issuersPath(ws), 'workload-issuer-added');
    }),
  );
  router.get('/workspaces/:ws/workload-issuers/:id/remove', page$(confirmRemove));
  router.post(
    WORKLOAD_ISSUER_FORMS.remove.path,
    page$(async (req, res, actor) => {
      if (!confirmed(req, WORKLOAD_ISSUER_FORMS.remove)) return confirmRemove(req, res, actor);
      await deps.management.removeWorkloadIssuer(actor, param(req, 'ws'), param(req, 'id'));
      back(res, issuersPath(param(req, 'ws')), 'workload-issuer-removed');
    }),
  );
}
