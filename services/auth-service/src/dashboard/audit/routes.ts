/** Workspace > Audit log routes (docs/dashboard.md, docs/audit.md "Export"): the pages and the export. */
import type { Router } from 'express';
import { ManagementError, streamExport } from '@svc/management';
import { render } from '../../pages/html.ts';
import { param, str, type Kit } from '../kit.ts';
import { auditPage } from './view.ts';

export function auditRoutes(router: Router, { deps, page$, frame }: Kit): void {
  router.get(
    '/workspaces/:ws/audit',
    page$(async (req, res, actor) => {
      const f = await frame(req, res, actor, 'audit', { workspace: param(req, 'ws') });
      const action = str(req.query['action']);
      const cursor = str(req.query['cursor']);
      try {
        const data = await deps.management.audit(actor, param(req, 'ws'), { cursor, action });
        render(res, auditPage(f, { ...data, action }));
      } catch (err) {
        // A cursor or action the page never gave (a hand-edited address): the log's first page, with why.
        if (!(err instanceof ManagementError) || err.status !== 400) throw err;
        const data = await deps.management.audit(actor, param(req, 'ws'), {});
        render(res, auditPage(f, { ...data, action: '', error: err.message }), { status: 400 });
      }
    }),
  );
  router.get(
    '/workspaces/:ws/audit/export',
    page$(
      async (req, res, actor) => {
        const chunks = await deps.management.auditExport(actor, param(req, 'ws'));
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
