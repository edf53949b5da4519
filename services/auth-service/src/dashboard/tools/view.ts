/**
 * Project > Tools (docs/approvals.md "The rule"): svc's own tools on this project's endpoint, who
 * may call each, and which of their calls wait for an admin's approval here. Upstream servers' tools
 * have their rows on their server's page.
 */
import type { BuiltinToolView } from '@svc/management';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { APPROVAL_CHOICES, options, table } from '../parts.ts';

function approvalCell(f: Frame, t: BuiltinToolView): SafeHtml {
  const name = t.name;
  if (!t.approval_settable) return html`<span class="muted">Always runs: any caller needs it to find their way</span>`;
  return postForm(
    f,
    `/dashboard/projects/${encodeURIComponent(f.project!.slug)}/tools/${encodeURIComponent(name)}/approval`,
    html`<label for="approval-${name}" class="skip">Which calls of ${name} wait for an approval</label><select id="approval-${name}" name="approval">${options(APPROVAL_CHOICES, t.approval)}</select> `,
    html`<button type="submit" class="small secondary" aria-label="Save the approval rule of ${name}">Save</button>`,
    'inline',
  );
}

export function toolsPage(f: Frame, tools: BuiltinToolView[]): SafeHtml {
  return dashboardPage(
    f,
    'Tools',
    html`<p class="muted">svc's own tools on this project. A call of a tool whose rule makes it wait does not run: it waits on the Approvals page for an admin of this project, and runs once, as its caller, after an approval. Changing a rule asks for your second factor if you have one.</p>
${table(
  "svc's own tools",
  ['Tool', 'What it does', 'Who may call it', 'Approval', 'Set by'],
  tools.map((t) => [
    html`<code>${t.name}</code>`,
    t.summary,
    t.level,
    approvalCell(f, t),
    t.set_by ?? html`<span class="muted">svc (the tool's own)</span>`,
  ]),
  '',
)}`,
  );
}
