/**
 * Workspace > Audit log (docs/dashboard.md, docs/audit.md): newest first, filtered by person,
 * action and date range, "Older entries", and the export of the filtered view.
 */
import { AUDIT_FILTER_SCAN } from '@svc/accounts/audit-actions.ts';
import type { AuditRow } from '@svc/management';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, type Frame } from '../frame.ts';
import { emptyState, table, when } from '../parts.ts';

/** The filter as the form sent it (the page shows it back and carries it to the next page and the export). */
export interface AuditFilterForm {
  action: string;
  actor: string;
  from: string;
  to: string;
}

export interface AuditPage extends AuditFilterForm {
  entries: AuditRow[];
  next: string | null;
  actions: readonly string[];
  error?: string;
}

/** The filter's query string (empty parts left out), to carry the filter to "Older entries" and the export. */
function filterQuery(v: AuditFilterForm): string {
  const q = new URLSearchParams();
  for (const k of ['actor', 'action', 'from', 'to'] as const) if (v[k]) q.set(k, v[k]);
  return q.toString();
}

export function auditPage(f: Frame, v: AuditPage): SafeHtml {
  const base = `/dashboard/workspaces/${encodeURIComponent(f.workspace)}/audit`;
  const filter = html`<form method="get" action="${base}" class="filters"><fieldset><legend>Filter</legend>
<div><label for="audit-actor">Person</label><input type="text" id="audit-actor" name="actor" value="${v.actor}" autocomplete="off" aria-describedby="audit-actor-hint"><p class="hint muted" id="audit-actor-hint">An email address, or key:&lt;prefix&gt;, exactly as the Actor column shows it.</p></div>
<div><label for="audit-action">Action</label><select id="audit-action" name="action"><option value="">All actions</option>${v.actions.map(
    (a) => html`<option${a === v.action && html` selected`}>${a}</option>`,
  )}</select></div>
<div class="dates"><div><label for="audit-from">From</label><input type="date" id="audit-from" name="from" value="${v.from}"></div>
<div><label for="audit-to">To</label><input type="date" id="audit-to" name="to" value="${v.to}"></div></div>
<button type="submit" class="secondary">Filter</button>${filterQuery(v) && html`<a href="${base}">Clear</a>`}</fieldset></form>`;
  const rows = v.entries.map((e) => [when(e.at), e.actor, through(e), e.action, e.target, e.source, html`<code>${e.requestId}</code>`]);
  const query = filterQuery(v);
  const older = v.next && `${base}?${query ? `${query}&` : ''}cursor=${encodeURIComponent(v.next)}`;
  const filtered = query !== '';
  const empty = filtered
    ? emptyState(
        'No entries on this page match the filter.',
        html`<p>Older entries may: follow “Older entries”, or <a href="${base}">clear the filter</a>.</p>`,
      )
    : emptyState(
        'Nothing recorded yet.',
        html`<p>Every change made in this workspace (keys, members, access requests, service accounts, settings), from this dashboard, the API or the CLI, is recorded here with who made it, from which address and its request id. <code>svc audit</code> reads the same log.</p>`,
      );
  return dashboardPage(
    f,
    'Audit log',
    html`${v.error && html`<p class="error" role="alert">${v.error} Showing the newest entries.</p>`}${filter}<p><a href="${`${base}/export${query ? `?${query}` : ''}`}" download>Export${filtered ? ' this filtered view' : ''} as JSON lines</a> (${filtered ? 'every kept entry the filter lets through' : 'every entry your plan keeps'}; a complete file ends with a line <code>{"complete":true,...}</code>)</p>
${table('Audit log', ['Time', 'Actor', 'Through', 'Action', 'Target', 'Source', 'Request'], rows, empty)}${older && html`<p><a href="${older}">Older entries</a>${filtered && html` <span class="muted">(a filtered page searches at most ${AUDIT_FILTER_SCAN} entries)</span>`}</p>`}`,
  );
}

/**
 * Through what the actor acted (docs/audit.md "Who and through what"): the OAuth client by its name,
 * marked when svc does not vouch for it, or the API key, svc's pages, svc-admin or svc itself; a
 * delegated token's chain after it, the current client first.
 */
function through(e: AuditRow): SafeHtml {
  const a = e.agent;
  const named =
    a.type === 'oauth_client'
      ? html`${a.name || a.id}${!a.verified && html` <span class="muted">(unverified)</span>`}`
      : a.type === 'api_key'
        ? html`key <code>${a.id}</code>`
        : html`${AGENT_LABELS[a.type]}`;
  const chain = e.chain.length > 0 && html`<br><span class="muted">delegated by ${e.chain.map((c) => c.sub).join(' ← ')}</span>`;
  return html`${named}${chain}`;
}

const AGENT_LABELS: Record<Exclude<AuditRow['agent']['type'], 'oauth_client' | 'api_key'>, string> = {
  web: 'dashboard',
  operator: 'svc-admin',
  svc: 'svc',
  unknown: '—',
};
