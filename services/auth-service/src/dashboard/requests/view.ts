/**
 * Project > Access requests (docs/dashboard.md): a page of the requests, newest asked first
 * (docs/management.md "Lists and pages"): its pending ones, approve at a level or deny; then its
 * decided ones; "Older requests" for the next page.
 */
import type { RequestRow } from '@svc/management';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { age, cell, LEVELS, levelOptions, table, when } from '../parts.ts';

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
      'Nobody is waiting for access.',
    )}<h2>Decided</h2>${table(
      'Decided access requests',
      ['Requester', 'Level asked', 'Reason', 'Asked', 'Decision', 'Level granted', 'Decided by'],
      decided.map((r) => [
        r.requester,
        r.level,
        r.reason,
        when(r.createdAt),
        cell(`status-${r.status === 'approved' ? 'active' : 'revoked'}`, r.status),
        r.grantedLevel ?? '-',
        r.decidedBy ?? '-',
      ]),
      'No decisions yet.',
    )}${v.next && html`<p><a href="${base}?cursor=${encodeURIComponent(v.next)}">Older requests</a></p>`}`,
  );
}
