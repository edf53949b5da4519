/**
 * One held call, reviewed before it is decided (docs/approvals.md "With a passkey"): the tool, the
 * arguments exactly as they will run, who made the call and through what, its hash; approved with
 * a passkey whose signature covers this call, or with the Approve button, or denied.
 */
import type { Approval } from '@svc/accounts';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { ago } from '../parts.ts';

export function approvalReviewPage(
  f: Frame,
  v: { approval: Approval; now: number; passkey: SafeHtml | undefined; error?: string },
): SafeHtml {
  const a = v.approval;
  const base = `/dashboard/projects/${encodeURIComponent(f.project!.slug)}/approvals`;
  const through = a.caller.clientId.startsWith('svc-key:') ? 'an API key' : a.caller.clientId;
  const pending = a.status === 'pending';
  return dashboardPage(
    f,
    'Approve a call',
    html`${v.error && html`<p class="error" role="alert">${v.error}</p>`}<dl class="facts">
<dt>Tool</dt><dd><code>${a.tool}</code></dd>
<dt>Arguments, as they will run</dt><dd><pre>${JSON.stringify(a.arguments, null, 2)}</pre></dd>
<dt>Caller</dt><dd>${a.caller.label}</dd>
<dt>Through</dt><dd>${through}</dd>
<dt>Call hash</dt><dd><code>${a.callHash}</code></dd>
<dt>Status</dt><dd>${a.status}${pending && html`: decide ${ago(a.expiresAt, v.now)}`}</dd></dl>
${
  pending
    ? html`${
        v.passkey
          ? html`<h2>With a passkey</h2><p class="muted">Your passkey signs this exact call (its tool, its arguments and its caller): the signature is kept with the approval, for anyone to check later.</p>${v.passkey}`
          : html`<p class="muted">Add a passkey on the <a href="/factors">second factors</a> page to sign approvals with it.</p>`
      }<h2>Without one</h2>${postForm(
        f,
        `${base}/${encodeURIComponent(a.id)}/approve`,
        html`<input type="hidden" name="call_hash" value="${a.callHash}">`,
        html`<button type="submit">Approve</button>`,
        'inline',
      )} ${postForm(f, `${base}/${encodeURIComponent(a.id)}/deny`, '', html`<button type="submit" class="danger">Deny</button>`, 'inline')}`
    : html`<p>This call is no longer waiting for a decision.</p>`
}<p><a href="${base}">Back to Approvals</a></p>`,
  );
}
