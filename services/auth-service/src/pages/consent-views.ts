/**
 * The consent page of each client profile (docs/contract.md "Client profiles" and "Device flow
 * pages"). Every page says who asks and where the answer goes (MCP 2026-07-28 authorization: the
 * redirect URI's host is shown): the client's name isolated in <bdi> and cleaned (see
 * displayClientName), wrapped anywhere so a long name never overflows a phone screen; a "Not
 * verified by svc" mark for clients that registered themselves or came from a metadata URL; and a
 * way out for someone signed in as another person.
 */
import type { ProjectAccess } from '@svc/accounts';
import type { KeyLevel } from '@svc/policy';
import { csrfField } from '../http/web-session.ts';
import { preselectedLevel } from '../oauth/consent-levels.ts';
import { html, joinHtml, type SafeHtml } from '../ui/html.ts';
import { errorLine, page } from '../ui/layout.ts';

export interface ConsentView {
  uid: string;
  csrf: string;
  /** Already cleaned for display (displayClientName). */
  clientName: string;
  /** First-party svc clients; registered and metadata-document clients are not. */
  verified: boolean;
  /** The host the browser returns to (authorization-code flow only). */
  redirectHost?: string | undefined;
  email: string;
  error?: string | undefined;
  /** Days an approval lasts (the Grant's lifetime), said on the pages that grant tokens. */
  accessDays?: number;
  /** The workspace rule that admits the client, when one does (docs/management.md "Client governance"). */
  admittedBy?: { workspace: string; rule: string } | undefined;
}

/** The client's name, isolated from the text around it (Unicode UAX #9) and free to wrap. */
function clientLabel(v: ConsentView): SafeHtml {
  return html`<strong><bdi style="overflow-wrap:anywhere;word-break:break-word">${v.clientName}</bdi></strong>`;
}

function aboutClient(v: ConsentView): SafeHtml {
  const mark = v.verified
    ? ''
    : html`<p class="error">Not verified by svc: svc does not know who made this application. Approve only if you started this from an application you trust.</p>`;
  const host = v.redirectHost
    ? html`<p>After you answer, you return to <strong style="overflow-wrap:anywhere">${v.redirectHost}</strong>.</p>`
    : '';
  const rule = v.admittedBy
    ? html`<p class="muted" id="client-rule">Workspace <strong>${v.admittedBy.workspace}</strong> admits this application: ${ruleLabel(v.admittedBy.rule)}.</p>`
    : '';
  return html`${mark}${host}${rule}`;
}

/** A governance rule in words: `allow host claude.ai` is the owner's rule, `approved` their decision. */
function ruleLabel(rule: string): SafeHtml {
  if (rule === 'approved' || rule === 'approval denied') return html`the owner's decision (<code>${rule}</code>)`;
  return html`the owner's rule <code>${rule}</code>`;
}

function frame(v: ConsentView, title: string, inner: SafeHtml): SafeHtml {
  return page(
    title,
    html`${errorLine(v.error)}<p>Signed in as <strong>${v.email}</strong>. <span class="muted">Not you? <a href="/signout">Sign out</a></span></p>
${aboutClient(v)}
<form method="post" action="/interaction/${v.uid}/consent">${csrfField(v.csrf)}${inner}
<button type="submit">Approve</button></form>
<form method="post" action="/interaction/${v.uid}/abort">${csrfField(v.csrf)}<button type="submit" class="secondary">Deny</button></form>`,
  );
}

/**
 * svc-cli (docs/contract.md "Client profiles" rule 2): the key's reach, expiry and what it replaces
 * are listed, and one box confirms the grant in those terms. The key acts at the person's own role
 * in every project, with no level to choose, so the box is the one deliberate step between a typed
 * code and that reach; the page's other facts need no box of their own.
 */
export function personalKeyConsent(v: ConsentView, keyDays: number): SafeHtml {
  return frame(
    v,
    'Create a personal key',
    html`<p>${clientLabel(v)} asks for a personal key that acts as you.</p>
<ul class="key-terms" id="key-terms">
<li>It reaches <strong>every project you can access</strong>, with your role in each: where you are ADMIN, it can manage the project.</li>
<li>It expires after <strong>${keyDays} days</strong>.</li>
<li>It replaces your previous key from this tool, which stops working.</li>
</ul>
<label class="check"><input type="checkbox" name="confirm_key" value="yes" required aria-describedby="key-terms"${v.error ? html` aria-invalid="true" autofocus` : ''}> I understand: this key acts as me in every project I can access, for ${keyDays} days.</label>`,
  );
}

/** svc-mcp, svc-companion, and clients that named no resource: the person picks one project. */
export function projectSelectionConsent(v: ConsentView, projects: ProjectAccess[], levels: readonly KeyLevel[]): SafeHtml {
  if (projects.length === 0) {
    // No dead end: create a project here (in the person's own workspace) and come back to choose it.
    const invalid = v.error ? html` aria-invalid="true" aria-describedby="project-name-error" autofocus` : '';
    return page(
      'No project available',
      html`<p>Signed in as <strong>${v.email}</strong>, you have no access to any project yet.</p>
<p>Create one now and continue, or ask a project admin to add you and start again.</p>
<form method="post" action="/interaction/${v.uid}/create-project">${csrfField(v.csrf)}
<label for="project-name">Project name</label><input id="project-name" name="name" type="text" maxlength="60" required${invalid}>${
        v.error ? html`<p class="error" id="project-name-error" role="alert">${v.error}</p>` : ''
      }
<button type="submit">Create project and continue</button></form>
<form method="post" action="/interaction/${v.uid}/abort">${csrfField(v.csrf)}<button type="submit" class="secondary">Cancel</button></form>`,
    );
  }
  const options = joinHtml(
    projects.map(
      (p, i) =>
        html`<label class="check"><input type="radio" name="project" value="${p.project.slug}"${i === 0 && html` checked`} required> ${p.project.name} <span class="muted">(${p.project.slug}, ${p.role})</span></label>`,
    ),
    html`\n`,
  );
  return frame(
    v,
    'Choose a project',
    html`<p>${clientLabel(v)} asks for access to one of your projects, as you.</p>
<fieldset><legend>Project</legend>${options}</fieldset>
${levelSelect(levels)}
<p class="muted">It never gets more than your role on the project you choose.</p>
${lifetimeLine(v)}`,
  );
}

const LEVEL_TEXT: Record<KeyLevel, string> = {
  VIEWER: 'VIEWER: read only',
  EDITOR: 'EDITOR: read and change',
  ADMIN: 'ADMIN: read, change and manage',
};

/** The level select: EDITOR preselected, or the highest offered when lower; ADMIN only when chosen. */
function levelSelect(levels: readonly KeyLevel[]): SafeHtml {
  const selected = preselectedLevel(levels);
  const options = levels.map((l) => html`<option value="${l}"${l === selected && html` selected`}>${LEVEL_TEXT[l]}</option>`);
  return html`<label for="level">Access level it gets</label>
<select id="level" name="level" style="width:100%;padding:.6rem;font-size:1rem">${options}</select>`;
}

/** How long an approval lasts, in the person's terms (the Grant's lifetime: docs/auth-service.md "Scopes"). */
function lifetimeLine(v: ConsentView): SafeHtml {
  return html`<p class="lifetime">This access lasts ${v.accessDays ?? 0} days, however often the application uses it; after that it must ask you again. You can end it sooner on your account page.</p>`;
}

/**
 * Authorization code flow with a resource: names the client and the project, and the level the
 * client gets: EDITOR (or the highest of `levels` when lower) unless the person picks another.
 */
export function projectApprovalConsent(v: ConsentView, project: ProjectAccess, levels: readonly KeyLevel[]): SafeHtml {
  return frame(
    v,
    'Approve access',
    html`<p>${clientLabel(v)} asks to use project <strong>${project.project.name}</strong> (${project.project.slug}) as you. Your role there is ${project.role}.</p>
${levelSelect(levels)}
<p class="muted">Choose a lower level to limit what it can do; choose ADMIN only if it must manage the project.</p>
${lifetimeLine(v)}`,
  );
}

/** create-svc with auto_provision: approve creating or reusing the personal workspace project. */
export function provisionConsent(
  v: ConsentView,
  workspace: string,
  project: { existing: string | null; name: string | undefined; keyLevel: KeyLevel; keyDays: number },
): SafeHtml {
  const what = project.existing
    ? html`use your existing project <strong>${project.existing}</strong> in your personal workspace <strong>${workspace}</strong>`
    : html`create a project${project.name === undefined ? '' : html` named <strong>${project.name}</strong>`} in your personal workspace <strong>${workspace}</strong>`;
  return frame(
    v,
    'Set up your project',
    html`<p>${clientLabel(v)} will ${what}, and receive an API key for it.</p>
<p class="key-terms">The key has level <strong>${project.keyLevel}</strong> (read and change, not manage) and expires after <strong>${project.keyDays} days</strong>. It is written to the <code>.env</code> file of the folder where you ran it; revoke it in the dashboard if that folder is shared or lost.</p>`,
  );
}

/**
 * The signed-in person has no role on the project the client asked for (docs/auth-service.md "No
 * dead ends"): they may ask the project's admins for access, or use another account. Either way
 * the client is told access_denied.
 */
export function noAccessPage(v: ConsentView, slug: string, exists: boolean): SafeHtml {
  const request = exists
    ? html`<form method="post" action="/interaction/${v.uid}/request-access">${csrfField(v.csrf)}
<p>You can ask the admins of <strong>${slug}</strong> for access. ${clientLabel(v)} is told no for now; connect it again once they approve.</p>
<label for="level">Access to ask for</label><select id="level" name="level"><option>VIEWER</option><option selected>EDITOR</option><option>ADMIN</option></select>
<label for="reason">Why (optional, shown to the admins)</label><input id="reason" name="reason" type="text" maxlength="500">
<button type="submit">Request access</button></form>`
    : '';
  return page(
    'No access to this project',
    html`<p>Signed in as <strong>${v.email}</strong>, you have no access to project <strong>${slug}</strong>${exists ? '' : ' (or it does not exist)'}.</p>
${request}<p><a href="/signout">Sign out and use another account</a></p>
<form method="post" action="/interaction/${v.uid}/abort">${csrfField(v.csrf)}<button type="submit" class="secondary">Cancel</button></form>`,
  );
}

/**
 * The workspace's client policy does not admit the client (docs/management.md "Client governance"):
 * the page names the rule, or says the client waits for the owner, who has been told. The only way
 * on is back to the client, which is told access_denied.
 */
export function clientGovernedPage(v: ConsentView, verdict: { outcome: 'refused' | 'pending'; rule: string; workspace: string }): SafeHtml {
  const ws = html`<strong>${verdict.workspace}</strong>`;
  const why =
    verdict.outcome === 'pending'
      ? html`<p role="status" id="client-rule">The owner of workspace ${ws} approves each new application before its people connect it (rule <code>approval</code>). ${clientLabel(v)} is waiting for their approval, and they have been told. Connect it again once they approve.</p>`
      : verdict.rule === 'allowlist'
        ? html`<p class="error" role="alert" id="client-rule">Workspace ${ws} admits only the applications its owner listed (rule <code>allowlist</code>), and ${clientLabel(v)} is not one of them.</p>`
        : html`<p class="error" role="alert" id="client-rule">Workspace ${ws} does not admit ${clientLabel(v)}: ${ruleLabel(verdict.rule)} applies.</p>`;
  return page(
    verdict.outcome === 'pending' ? 'Waiting for approval' : 'Application not allowed',
    html`<p>Signed in as <strong>${v.email}</strong>.</p>
${why}<p class="muted">Ask the workspace owner if you need it sooner.</p>
<form method="post" action="/interaction/${v.uid}/abort">${csrfField(v.csrf)}<button type="submit" class="secondary">Back to the application</button></form>`,
  );
}

export function refusalPage(title: string, message: string): SafeHtml {
  return page(title, html`<p class="error" role="alert">${message}</p><nav><a href="/device">Enter a device code</a></nav>`);
}
