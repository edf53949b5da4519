/** The consent page of each client profile (docs/contract.md "Client profiles" and "Device flow pages"). */
import type { ProjectAccess } from '@svc/accounts';
import { csrfField } from '../http/web-session.ts';
import { errorLine, esc, page } from './layout.ts';

export interface ConsentView {
  uid: string;
  csrf: string;
  clientName: string;
  email: string;
  error?: string | undefined;
}

function frame(v: ConsentView, title: string, inner: string): string {
  return page(
    title,
    `${errorLine(v.error)}<p>Signed in as <strong>${esc(v.email)}</strong>.</p>
<form method="post" action="/interaction/${esc(v.uid)}/consent">${csrfField(v.csrf)}${inner}
<button type="submit">Approve</button></form>
<form method="post" action="/interaction/${esc(v.uid)}/abort">${csrfField(v.csrf)}<button type="submit" class="secondary">Deny</button></form>`,
  );
}

/** svc-cli: both confirmations (docs/contract.md "Client profiles" rule 2). */
export function personalKeyConsent(v: ConsentView): string {
  return frame(
    v,
    'Create a personal key',
    `<p><strong>${esc(v.clientName)}</strong> asks for a personal key that acts as you.</p>
<label class="check"><input type="checkbox" name="confirm_all_projects" value="yes" required> I understand this key can access every project I can access.</label>
<label class="check"><input type="checkbox" name="confirm_expiry" value="yes" required> I understand this key expires after 30 days, and that it replaces my previous key from this tool.</label>`,
  );
}

/** svc-mcp, svc-companion, and clients that named no resource: the person picks one project. */
export function projectSelectionConsent(v: ConsentView, projects: ProjectAccess[]): string {
  if (projects.length === 0) {
    return page(
      'No project available',
      `<p>Signed in as <strong>${esc(v.email)}</strong>, you have no access to any project yet.</p>
<p>Ask a project admin to add you, or create a project first.</p>
<form method="post" action="/interaction/${esc(v.uid)}/abort">${csrfField(v.csrf)}<button type="submit" class="secondary">Cancel</button></form>`,
    );
  }
  const options = projects
    .map(
      (p, i) =>
        `<label class="check"><input type="radio" name="project" value="${esc(p.project.slug)}"${i === 0 ? ' checked' : ''} required> ${esc(p.project.name)} <span class="muted">(${esc(p.project.slug)}, ${esc(p.role)})</span></label>`,
    )
    .join('\n');
  return frame(
    v,
    'Choose a project',
    `<p><strong>${esc(v.clientName)}</strong> asks for access to one of your projects, as you.</p>
<fieldset><legend>Project</legend>${options}</fieldset>`,
  );
}

/** Authorization code flow with a resource: names the client and the project. */
export function projectApprovalConsent(v: ConsentView, project: ProjectAccess): string {
  return frame(
    v,
    'Approve access',
    `<p><strong>${esc(v.clientName)}</strong> asks to use project <strong>${esc(project.project.name)}</strong> (${esc(project.project.slug)}) as you, with your role ${esc(project.role)}.</p>`,
  );
}

/** create-svc with auto_provision: approve creating or reusing the personal workspace project. */
export function provisionConsent(
  v: ConsentView,
  workspace: string,
  project: { existing: string | null; name: string | undefined },
): string {
  const what = project.existing
    ? `use your existing project <strong>${esc(project.existing)}</strong> in your personal workspace <strong>${esc(workspace)}</strong>`
    : `create a project${project.name === undefined ? '' : ` named <strong>${esc(project.name)}</strong>`} in your personal workspace <strong>${esc(workspace)}</strong>`;
  return frame(v, 'Set up your project', `<p><strong>${esc(v.clientName)}</strong> will ${what}, and receive an API key for it.</p>`);
}

export function refusalPage(title: string, message: string): string {
  return page(title, `<p class="error" role="alert">${esc(message)}</p><nav><a href="/device">Enter a device code</a></nav>`);
}
