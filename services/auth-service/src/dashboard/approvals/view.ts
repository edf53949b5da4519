/**
 * Project > Approvals (docs/approvals.md): the calls held for an admin's approval, each with the
 * tool, the arguments exactly as they will run, who made the call and through what; approve (of
 * that call's hash) or deny. Then the decided ones and what became of them.
 */
import type { Approval } from '@svc/accounts';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { age, ago, cell, emptyState, table } from '../parts.ts';

/** Where held calls come from, said where there is none. */
function howCallsArrive(slug: string): SafeHtml {
  return html`<p>A tool whose row asks for an approval does not run when it is called: the call waits here for an admin of this project. Approved, it runs once, as its caller, when they next ask for its status (<code>svc_approval_status</code>); denied, or left an hour, it never runs.</p>
<p>Set which calls wait on an upstream tool's row: <code>svc upstreams tool &lt;server&gt; &lt;tool&gt; --approval all --project ${slug}</code>, or <code>PATCH /api/v1/projects/${slug}/upstreams/&lt;server&gt;/tools/&lt;tool&gt;</code> with <code>{"approval": "all"}</code> (docs/approvals.md).</p>`;
}

const STATUS_CLASS: Record<Approval['status'], string> = {
  pending: 'status-active',
  approved: 'status-active',
  running: 'status-active',
  done: 'status-active',
  denied: 'status-revoked',
  expired: 'status-revoked',
  cancelled: 'status-revoked',
};

/** Through what the call came: an API key is said so; an OAuth client by its client id. */
const through = (a: Approval) => (a.caller.clientId.startsWith('svc-key:') ? 'an API key' : a.caller.clientId);

export function approvalsPage(f: Frame, v: { approvals: Approval[]; now: number }): SafeHtml {
  const base = `/dashboard/projects/${encodeURIComponent(f.project!.slug)}/approvals`;
  const pending = v.approvals.filter((a) => a.status === 'pending');
  const decided = v.approvals.filter((a) => a.status !== 'pending');
  const call = (a: Approval) => html`<code>${a.tool}</code><pre>${JSON.stringify(a.arguments, null, 2)}</pre>`;
  const decide = (a: Approval) =>
    html`<a href="${base}/${encodeURIComponent(a.id)}" class="small" aria-label="Review the call of ${a.tool} (passkey)">Review</a> ${postForm(
      f,
      `${base}/${encodeURIComponent(a.id)}/approve`,
      html`<input type="hidden" name="call_hash" value="${a.callHash}">`,
      html`<button type="submit" class="small">Approve</button>`,
      'inline',
    )} ${postForm(f, `${base}/${encodeURIComponent(a.id)}/deny`, '', html`<button type="submit" class="small danger">Deny</button>`, 'inline')}`;
  return dashboardPage(
    f,
    'Approvals',
    html`<h2>Waiting (${pending.length})</h2>${table(
      'Calls waiting for an approval',
      ['Call', 'Caller', 'Through', 'Waiting', 'Decide before', 'Decision'],
      pending.map((a) => [call(a), a.caller.label, through(a), age(a.createdAt, v.now), ago(a.expiresAt, v.now), decide(a)]),
      emptyState('No call is waiting for an approval.', howCallsArrive(f.project!.slug)),
    )}${
      decided.length > 0 &&
      html`<h2>Decided</h2>${table(
        'Decided calls',
        ['Call', 'Caller', 'Asked', 'Status', 'Decided by'],
        decided.map((a) => [call(a), a.caller.label, ago(a.createdAt, v.now), cell(STATUS_CLASS[a.status], a.status), a.decidedBy ?? '-']),
        '',
      )}`
    }`,
  );
}
