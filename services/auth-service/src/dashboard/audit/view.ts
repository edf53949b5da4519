/**
 * Workspace > Audit log (docs/dashboard.md, docs/audit.md): newest first, filtered by action,
 * "Older entries", and the export.
 */
import type { AuditRow } from '@svc/management';
import { html, type SafeHtml } from '../../pages/html.ts';
import { dashboardPage, type Frame } from '../frame.ts';
import { table, when } from '../parts.ts';

export interface AuditPage {
  entries: AuditRow[];
  action: string;
  next: string | null;
  actions: readonly string[];
  error?: string;
}

export function auditPage(f: Frame, v: AuditPage): SafeHtml {
  const base = `/dashboard/workspaces/${encodeURIComponent(f.workspace)}/audit`;
  const filter = html`<form method="get" action="${base}"><label for="audit-action">Action</label><select id="audit-action" name="action"><option value="">All actions</option>${v.actions.map(
    (a) => html`<option${a === v.action && html` selected`}>${a}</option>`,
  )}</select><button type="submit" class="secondary">Filter</button></form>`;
  const rows = v.entries.map((e) => [when(e.at), e.actor, e.action, e.target, e.source, html`<code>${e.requestId}</code>`]);
  const older = v.next && `${base}?cursor=${encodeURIComponent(v.next)}${v.action ? `&action=${encodeURIComponent(v.action)}` : ''}`;
  return dashboardPage(
    f,
    'Audit log',
    html`${v.error && html`<p class="error" role="alert">${v.error} Showing the newest entries.</p>`}${filter}<p><a href="${`${base}/export`}" download>Export as JSON lines</a> (every entry your plan keeps; a complete file ends with a line <code>{"complete":true,...}</code>)</p>
${table('Audit log', ['Time', 'Actor', 'Action', 'Target', 'Source', 'Request'], rows, 'Nothing recorded yet.')}${older && html`<p><a href="${older}">Older entries</a></p>`}`,
  );
}
