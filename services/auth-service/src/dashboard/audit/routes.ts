/** Workspace > Audit log routes (docs/dashboard.md, docs/audit.md "Export"): the pages and the export. */
import type { Request, Router } from 'express';
import { ManagementError, streamExport } from '@svc/management';
import { render } from '../../ui/html.ts';
import { param, str, type Kit } from '../kit.ts';
import { auditPage } from './view.ts';

/** The filter's fields as the page's form sends them (checked by the management layer). */
const filterOf = (req: Request) => ({
  actor: str(req.query['actor']),
  action: str(req.query['action']),
  from: str(req.query['from']),
  to: str(req.query['to']),
});

export function auditRoutes(router: Router, { deps, page$, frame }: Kit): void {
  router.get(
    '/workspaces/:ws/audit',
    page$(async (req, res, actor) => {
      const f = await frame(req, res, actor, 'audit', { workspace: param(req, 'ws') });
      const form = filterOf(req);
      try {
        const data = await deps.management.audit(actor, param(req, 'ws'), { ...form, cursor: str(req.query['cursor']) });
        render(res, auditPage(f, { ...data, ...form }));
      } catch (err) {
        // A filter or cursor that is not valid (a date typed by hand, an edited address): the
        // log's first page, with why and the form as sent.
        if (!(err instanceof ManagementError) || err.status !== 400) throw err;
        const data = await deps.management.audit(actor, param(req, 'ws'), {});
        render(res, auditPage(f, { ...data, ...form, error: err.message }), { refusal: 'invalid_form' });
      }
    }),
  );
  router.get(
    '/workspaces/:ws/audit/export',
    page$(
      async (req, res, actor) => {
        const chunks = await deps.management.auditExport(actor, param(req, 'ws'), filterOf(req));
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
}
