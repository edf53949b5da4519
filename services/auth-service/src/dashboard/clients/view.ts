/**
 * Workspace > Clients (docs/management.md "Client governance"): the owner's client policy (a mode
 * and the allow and deny lists, one rule a line) and the clients that waited for approval, each
 * approved or denied here.
 */
import type { ClientApproval, ClientPolicy } from '@svc/accounts';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { ago, cell, emptyState, options, table } from '../parts.ts';

export const clientsPath = (ws: string) => `/dashboard/workspaces/${encodeURIComponent(ws)}/clients`;

const MODES = [
  { value: 'open', label: 'Open: any application not denied' },
  { value: 'allowlist', label: 'Allow list: only the applications allowed' },
  { value: 'approval', label: 'Approval: new applications wait for you' },
];

/** A list of rules as the form's lines: `host claude.ai`. */
const ruleLines = (rules: ClientPolicy['allow']) => rules.map((r) => `${r.kind} ${r.value}`).join('\n');

const STATE_CLASS: Record<ClientApproval['state'], string> = {
  pending: 'status-expiring',
  approved: 'status-active',
  denied: 'status-revoked',
};

export function clientsPage(
  f: Frame,
  v: { policy: ClientPolicy; approvals: ClientApproval[]; now: number; error?: { message: string; field?: string | undefined } },
): SafeHtml {
  const base = clientsPath(f.workspace);
  const invalid = (field: string) => (v.error?.field === field ? html` aria-invalid="true" aria-describedby="policy-error"` : '');
  const policyForm = postForm(
    f,
    `${base}/policy`,
    html`${v.error ? html`<p class="error" role="alert" id="policy-error">${v.error.message}</p>` : ''}
<label for="client-mode">Applications not on a list</label><select id="client-mode" name="mode"${invalid('mode')}>${options(MODES, v.policy.mode)}</select>
<label for="client-allow">Allow list (one rule a line: <code>host claude.ai</code>, <code>client_id https://…</code>, <code>name Claude</code>)</label>
<textarea id="client-allow" name="allow" rows="4"${invalid('allow')}>${ruleLines(v.policy.allow)}</textarea>
<label for="client-deny">Deny list (wins over everything else)</label>
<textarea id="client-deny" name="deny" rows="4"${invalid('deny')}>${ruleLines(v.policy.deny)}</textarea>`,
    html`<button type="submit">Save policy</button>`,
  );
  const decide = (a: ClientApproval) =>
    html`${
      a.state !== 'approved' &&
      postForm(
        f,
        `${base}/approve`,
        html`<input type="hidden" name="client" value="${a.clientId}">`,
        html`<button type="submit" class="small">Approve</button>`,
        'inline',
      )
    } ${
      a.state !== 'denied' &&
      postForm(
        f,
        `${base}/deny`,
        html`<input type="hidden" name="client" value="${a.clientId}">`,
        html`<button type="submit" class="small danger">Deny</button>`,
        'inline',
      )
    }`;
  return dashboardPage(
    f,
    'Clients',
    html`<p>Decide which applications (OAuth clients such as ChatGPT, Claude or VS Code) the people of workspace <strong>${f.workspace}</strong> may connect to its projects. The consent page names the rule that applies. A rule names a client by <code>host</code> (of a metadata-document client's id), <code>client_id</code> or <code>name</code>; anyone can publish any name, so allow by host or id.</p>
<h2>Policy</h2>${policyForm}
<h2>Waiting and decided</h2>${table(
      'Applications that waited for approval',
      ['Application', 'State', 'First asked by', 'Decision'],
      v.approvals.map((a) => [
        html`${a.name ?? '-'}<br><code class="muted" style="word-break:break-all">${a.clientId}</code>`,
        cell(STATE_CLASS[a.state], a.state),
        html`${a.requestedBy}, ${ago(a.requestedAt, v.now)}`,
        decide(a),
      ]),
      emptyState(
        'No application has waited for approval.',
        html`<p>In approval mode, an application no one decided on waits when someone first connects it: it shows here, and the workspace's webhooks hear <code>client.approval_requested</code>.</p>`,
      ),
    )}`,
  );
}
