/**
 * Project > Access requests (docs/dashboard.md): a page of the requests, newest asked first
 * (docs/management.md "Lists and pages"): its pending ones, approve at a level or deny; then its
 * decided ones; "Older requests" for the next page.
 */
import type { RequestRow } from '@svc/management';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { age, ago, cell, emptyState, LEVELS, levelOptions, table } from '../parts.ts';

/**
 * How a request gets here, said where there is none: a person or agent refused for their level
 * asks from their MCP client (the svc_request_access tool), the CLI or the REST API.
 */
function howRequestsArrive(slug: string): SafeHtml {
  return html`<p>When someone without enough access to this project (no role, or a level too low for a tool) asks for it, the request waits here for an admin to approve at a level, or deny. It arrives from:</p>
<ul><li>an MCP client, through the <code>svc_request_access</code> tool (an agent refused a tool offers it);</li>
<li>the CLI: <code>svc request-access --project ${slug} --level EDITOR --reason "…"</code>;</li>
<li>the REST API: <code>POST /api/v1/projects/${slug}/access-requests</code> (docs/management.md).</li></ul>
<p>The person sees the decision on their Account page and in the client; approving gives the level chosen here, which may be lower than asked.</p>`;
}

export function requestsPage(
  f: Frame,
  v: { requests: RequestRow[]; canDecide: boolean; next: string | null; pending: number; now: number },
): SafeHtml {
  const base = `/dashboard/projects/${encodeURIComponent(f.project!.slug)}/requests`;
  const pending = v.requests.filter((r) => r.status === 'pending');
  const decided = v.requests.filter((r) => r.status !== 'pending');
  const decide = (r: RequestRow) =>
    v.canDecide &&
    html`${postForm(
      f,
      `${base}/${encodeURIComponent(r.id)}/approve`,
      html`<label for="level-${r.id}" class="skip">Level for ${r.requester}</label><select id="level-${r.id}" name="level">${levelOptions(LEVELS, r.level)}</select>`,
      html`<button type="submit" class="small">Approve</button>`,
      'inline',
    )} ${postForm(f, `${base}/${encodeURIComponent(r.id)}/deny`, '', html`<button type="submit" class="small danger">Deny</button>`, 'inline')}`;
  return dashboardPage(
    f,
    'Access requests',
    html`<h2>Pending (${v.pending})</h2>${table(
      'Pending access requests',
      ['Requester', 'Level asked', 'Reason', 'Waiting', 'Decision'],
      pending.map((r) => [
        r.requester,
        r.level,
        r.reason || html`<span class="muted">none given</span>`,
        age(r.createdAt, v.now),
        decide(r),
      ]),
      emptyState('Nobody is waiting for access.', howRequestsArrive(f.project!.slug)),
    )}${
      decided.length > 0 &&
      html`<h2>Decided</h2>${table(
        'Decided access requests',
        ['Requester', 'Level asked', 'Reason', 'Asked', 'Decision', 'Level granted', 'Decided by'],
        decided.map((r) => [
          r.requester,
          r.level,
          r.reason,
          ago(r.createdAt, v.now),
          cell(`status-${r.status === 'approved' ? 'active' : 'revoked'}`, r.status),
          r.grantedLevel ?? '-',
          r.decidedBy ?? '-',
        ]),
        '',
      )}`
    }${v.next && html`<p><a href="${base}?cursor=${encodeURIComponent(v.next)}">Older requests</a></p>`}`,
  );
}
