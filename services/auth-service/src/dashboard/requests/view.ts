/** Project > Access requests (docs/dashboard.md): pending first, approve at a level or deny; then the decided ones. */
import type { RequestRow } from '@svc/management';
import { html, type SafeHtml } from '../../pages/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { age, cell, LEVELS, levelOptions, table, when } from '../parts.ts';

export function requestsPage(f: Frame, v: { requests: RequestRow[]; canDecide: boolean; now: number }): SafeHtml {
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
    html`<h2>Pending (${pending.length})</h2>${table(
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
    )}`,
  );
}
