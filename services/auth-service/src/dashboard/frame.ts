/**
 * The dashboard's frame (docs/dashboard.md): a header with the workspace and project switchers and
 * a link to the person's own workspace, the section navigation with the pending-requests badge, a
 * main landmark, and a footer. Server rendered; each switcher is a GET form whose button opens the
 * choice, so arrow keys browse a list without leaving the page (WCAG 2.1 SC 3.2.2 On Input). It is
 * wider than the sign-in pages' single column, with tables that scroll in their own region on a phone.
 */
import { createHash } from 'node:crypto';
import type { ProjectRow } from '@svc/management';
import { html, trustedHtml, type SafeHtml } from '../ui/html.ts';
import { csrfField } from '../http/web-session.ts';

export type Section =
  | 'keys'
  | 'requests'
  | 'approvals'
  | 'members'
  | 'upstreams'
  | 'tools'
  | 'service-accounts'
  | 'usage'
  | 'audit'
  | 'sso'
  | 'scim'
  | 'webhooks'
  | 'clients'
  | 'account'
  | 'factors'
  | 'new-project';

export type FrameProject = ProjectRow;

/** A workspace the person belongs to: one they own, or one where they are a member of a project. */
export interface FrameWorkspace {
  slug: string;
  own: boolean;
}

export interface Frame {
  csrf: string;
  email: string;
  projects: FrameProject[];
  /** The workspaces the person belongs to, their own first. */
  workspaces: FrameWorkspace[];
  /** The person's own (personal) workspace, linked from every page. */
  ownWorkspace: string;
  /** The project the Project sections show; null when the person has none yet. */
  project: FrameProject | null;
  workspace: string;
  section: Section;
  pendingRequests: number;
  flash?: { kind: 'ok' | 'error'; text: string };
}

const CSS = trustedHtml(`
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1a1a1a;background:#f4f5f7}
a{color:#1f5fbf}:focus-visible{outline:3px solid #b35c00;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:2}
header{display:flex;flex-wrap:wrap;gap:.75rem 1.5rem;align-items:center;padding:.75rem 1.25rem;background:#10233f;color:#fff}
header .brand{font-weight:700;font-size:1.1rem;color:#fff;text-decoration:none}header form{display:flex;gap:.5rem;align-items:center;margin:0}
header label{font-size:.9rem;margin:0;font-weight:600}header select{padding:.35rem;font-size:.95rem;max-width:16rem;min-height:2rem}
header .who{margin-left:auto;font-size:.9rem}header .who a{color:#cfe0ff}
.layout{display:flex;flex-wrap:wrap;max-width:72rem;margin:0 auto;padding:1rem;gap:1rem}
nav.sections{flex:0 0 13rem}nav.sections h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:#4a4f57;margin:1rem 0 .25rem}
nav.sections ul{list-style:none;margin:0;padding:0}nav.sections a{display:block;padding:.35rem .5rem;border-radius:4px;text-decoration:none}
nav.sections a[aria-current=page]{background:#dde8fa;font-weight:600;color:#10233f}
.badge{display:inline-block;min-width:1.4rem;margin-left:.35rem;padding:0 .4rem;border-radius:999px;background:#a4000f;color:#fff;font-size:.8rem;text-align:center}
main{flex:1 1 30rem;min-width:0;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.15);padding:1.25rem 1.5rem}
h1{font-size:1.4rem;margin:0 0 1rem}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
.table{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.95rem}th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid #dfe2e6;vertical-align:top}
th{font-size:.85rem;color:#3d424a}td.num,th.num{text-align:right}
form.inline{display:inline}fieldset{border:1px solid #dfe2e6;border-radius:6px;padding:.5rem 1rem 1rem}legend{font-weight:600}
.filters .dates{display:flex;flex-wrap:wrap;gap:0 1rem}.filters input[type=date]{padding:.45rem;font-size:1rem;border:1px solid #6b7079;border-radius:4px;min-height:2.5rem}
.filters a{display:inline-block;padding:.5rem}label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],input[type=email],input[type=password],input[type=number],input[type=search],select,textarea{width:100%;max-width:28rem;padding:.5rem;font-size:1rem;border:1px solid #6b7079;border-radius:4px}
input[aria-invalid=true]{border-color:#a4000f;border-width:2px}p.error{color:#a4000f;font-weight:600;margin:.25rem 0}p.hint{margin:.25rem 0}
button{margin:.75rem .5rem .25rem 0;padding:.5rem 1rem;font-size:1rem;font-weight:600;color:#fff;background:#1f5fbf;border:0;border-radius:4px;cursor:pointer}
button.secondary{color:#1f5fbf;background:#fff;border:1px solid #1f5fbf}button.danger{background:#a4000f}
.small{font-size:.85rem;padding:.25rem .6rem;margin:0;min-height:2rem;min-width:2rem}
form.inline+form.inline,form.inline+a{margin-left:.5rem}td form.inline{display:inline-block;margin:.15rem 0}
header .own{color:#cfe0ff;font-size:.9rem;padding:.25rem 0}
.flash{padding:.6rem .8rem;border-radius:4px;margin:0 0 1rem}.flash.ok{background:#e3f4e8;color:#0b5b24}.flash.error{background:#fbe6e8;color:#a4000f}
.secret{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;padding:.75rem;border:2px solid #b35c00;border-radius:6px;background:#fff8ec}
.secret code{font:1rem ui-monospace,monospace;word-break:break-all}
.muted{color:#4a4f57;font-size:.9rem}.status-active{color:#0b5b24}.status-revoked,.status-expired{color:#a4000f}.status-rolling{color:#8a4b00}
footer{max-width:72rem;margin:0 auto;padding:1rem;color:#4a4f57;font-size:.85rem}
td code{white-space:nowrap}
label.check{display:inline-block;font-weight:400;margin:.25rem 1rem .25rem 0;min-height:2rem}
.title-row{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;margin:0 0 1rem}.title-row h1{margin:0}
a.button{display:inline-block;padding:.5rem 1rem;font-weight:600;color:#fff;background:#1f5fbf;border-radius:4px;text-decoration:none;min-height:2.5rem}
a.button.secondary{color:#1f5fbf;background:#fff;border:1px solid #1f5fbf}
details>summary{cursor:pointer;min-height:2rem}
details.menu{display:inline-block;min-width:9.5rem;vertical-align:top}details.menu>summary{list-style:none;display:inline-block;padding:.3rem .7rem;border:1px solid #6b7079;border-radius:4px;font-size:.9rem;white-space:nowrap}
details.menu>summary::-webkit-details-marker{display:none}details.menu[open]>summary{background:#dde8fa}
details.menu ul{list-style:none;margin:.25rem 0 0;padding:.25rem 0;border:1px solid #dfe2e6;border-radius:4px;background:#fff;box-shadow:0 2px 6px rgba(0,0,0,.12);min-width:9rem}
details.menu li a{display:block;padding:.4rem .75rem;min-height:2rem;text-decoration:none}details.menu li a:hover{background:#f0f3f8}details.menu li a.danger{color:#a4000f}
details.filters{margin:0 0 1rem}details.filters>summary{display:inline-block;color:#1f5fbf;font-weight:600;padding:.25rem 0}
form.filter{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:flex-end}form.filter>div{flex:1 1 12rem}
.empty{border:1px dashed #9aa0a8;border-radius:8px;padding:1rem 1.25rem;background:#fafbfc;margin:.5rem 0 1rem}.empty p{margin:.25rem 0}.empty-title{font-weight:600}
.copyable{display:inline-flex;flex-wrap:wrap;gap:.5rem;align-items:center}.copyable code{font:1rem ui-monospace,monospace;word-break:break-all;background:#f0f3f8;padding:.2rem .4rem;border-radius:4px}
pre.codes{font:1.05rem/1.7 ui-monospace,monospace;background:#f0f3f8;padding:.75rem 1rem;border-radius:6px;columns:2;max-width:28rem}
.recovery-actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}.recovery-actions button,.recovery-actions a.button{margin:0}
header .current{font-size:.9rem;color:#cfe0ff}
.pill{display:inline-block;padding:0 .5rem;border:1px solid;border-radius:999px;font-size:.8rem;font-weight:600;white-space:nowrap}
.state-listed{color:#0b5b24;background:#e3f4e8}.state-new{color:#1f4f9f;background:#e6eefb}.state-changed{color:#7a4200;background:#fff3e0}.state-missing{color:#4a4f57;background:#f0f1f3}
dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.3rem 1rem;margin:0 0 1rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0;overflow-wrap:anywhere}
td select{width:auto;padding:.3rem;min-height:2rem}td form.inline{white-space:nowrap}
details.menu li form{margin:0}details.menu li button{display:block;width:100%;margin:0;padding:.4rem .75rem;min-height:2rem;text-align:left;font-weight:400;color:#1f5fbf;background:none;border-radius:0}details.menu li button:hover{background:#f0f3f8}
.title-row .actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}.title-row .actions button{margin:0}.title-row .actions form.inline+form.inline{margin-left:0}
a.button.small{font-size:.85rem;padding:.25rem .6rem;min-height:2rem}a.review{margin-top:.35rem;white-space:nowrap}
h3{font-size:1rem;margin:1rem 0 .35rem}h4{font-size:.95rem;margin:.75rem 0 .25rem}p.described{white-space:pre-wrap;overflow-wrap:anywhere;margin:.25rem 0}
.compare{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:1rem}.compare section{border:1px solid #dfe2e6;border-radius:6px;padding:0 1rem .75rem}
pre.schema{font:.85rem/1.4 ui-monospace,monospace;background:#f0f3f8;padding:.5rem .75rem;border-radius:4px;overflow:auto;max-height:18rem;margin:.25rem 0}
ul.annotations{margin:.25rem 0;padding-left:1.25rem}
@media (max-width:40rem){nav.sections{flex-basis:100%}nav.sections ul{display:flex;flex-wrap:wrap;gap:.25rem}main{padding:1rem}
.table table,.table tbody,.table tr,.table td{display:block}.table thead{position:absolute;left:-9999px}
.table td form.inline{white-space:normal}.table td select{max-width:100%}
.table tr{border-bottom:1px solid #dfe2e6;padding:.5rem 0}.table td{border:0;padding:.15rem 0}.table td.num{text-align:left}
.table td::before{content:attr(data-label) ": ";font-weight:600;color:#3d424a}
dl.facts{grid-template-columns:1fr;gap:0}dl.facts dd{margin-bottom:.4rem}.compare{grid-template-columns:1fr}}
`);

/**
 * The dashboard's only script, progressive enhancement: "Copy" buttons copy the text of the element their data-copy names (a new key, the SSO callback URL, recovery codes), and a page showing a
 * new key that the browser restores from its back/forward cache is loaded again from the server,
 * which then says the key is gone (docs/dashboard.md "A key is shown once"). Allowed by its
 * hash in the Content-Security-Policy (DASHBOARD_CSP), so no other inline script can run.
 */
const SCRIPT = `document.querySelectorAll('button[data-copy]').forEach(b=>{b.hidden=false;b.addEventListener('click',async()=>{
const t=document.getElementById(b.dataset.copy);try{await navigator.clipboard.writeText(t.textContent.trim());b.textContent='Copied'}catch{b.textContent='Select the text and copy it'}})});
addEventListener('pageshow',e=>{if(e.persisted&&document.getElementById('new-key'))location.reload()});`;

/** The dashboard pages' Content-Security-Policy: nothing loads or runs but the page itself. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  `script-src 'sha256-${createHash('sha256').update(SCRIPT).digest('base64')}'`,
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * The second-factor pages in the dashboard's frame (factors/, mounted by mount-pages.ts): the
 * frame's script by its hash, and the passkey script from our origin (`script-src 'self'`, as the
 * sign-in pages allow it: http/security-headers.ts).
 */
export const FRAMED_FACTOR_CSP = DASHBOARD_CSP.replace("script-src '", "script-src 'self' '");

interface NavItem {
  section: Section;
  label: string;
  href: (f: Frame) => string;
  needsProject?: boolean;
}

const projectPath = (f: Frame, rest: string) =>
  f.project ? `/dashboard/projects/${encodeURIComponent(f.project.slug)}/${rest}` : '/dashboard';
/** The workspace the Workspace sections open: the one shown when the person owns it, else their own. */
const ownedWorkspace = (f: Frame) => (f.workspaces.some((w) => w.own && w.slug === f.workspace) ? f.workspace : f.ownWorkspace);
/**
 * A Workspace section's page. It names the open project (`?project=`) when that project is in the
 * workspace, so its header, footer and Project links stay on it rather than the workspace's first.
 */
const workspacePath = (f: Frame, rest: string) => {
  const ws = ownedWorkspace(f);
  const keep = f.project && f.project.workspace === ws ? `?project=${encodeURIComponent(f.project.slug)}` : '';
  return `/dashboard/workspaces/${encodeURIComponent(ws)}/${rest}${keep}`;
};

const NAV: { heading: string; items: NavItem[] }[] = [
  {
    heading: 'Project',
    items: [
      { section: 'keys', label: 'API Keys', href: (f) => projectPath(f, 'keys'), needsProject: true },
      { section: 'requests', label: 'Access requests', href: (f) => projectPath(f, 'requests'), needsProject: true },
      { section: 'approvals', label: 'Approvals', href: (f) => projectPath(f, 'approvals'), needsProject: true },
      { section: 'members', label: 'Members', href: (f) => projectPath(f, 'members'), needsProject: true },
      { section: 'upstreams', label: 'Upstream servers', href: (f) => projectPath(f, 'upstreams'), needsProject: true },
      { section: 'tools', label: 'Tools', href: (f) => projectPath(f, 'tools'), needsProject: true },
      { section: 'new-project', label: 'New project', href: () => '/dashboard/projects/new' },
    ],
  },
  {
    heading: 'Workspace',
    items: [
      { section: 'service-accounts', label: 'Service accounts', href: (f) => workspacePath(f, 'service-accounts') },
      { section: 'usage', label: 'Usage', href: (f) => workspacePath(f, 'usage') },
      { section: 'audit', label: 'Audit log', href: (f) => workspacePath(f, 'audit') },
      { section: 'sso', label: 'Single sign-on', href: (f) => workspacePath(f, 'sso') },
      { section: 'scim', label: 'SCIM provisioning', href: (f) => workspacePath(f, 'scim') },
      { section: 'webhooks', label: 'Webhooks', href: (f) => workspacePath(f, 'webhooks') },
      { section: 'clients', label: 'Clients', href: (f) => workspacePath(f, 'clients') },
    ],
  },
  {
    heading: 'You',
    items: [
      { section: 'account', label: 'Account', href: () => '/dashboard/account' },
      { section: 'factors', label: 'Second factors', href: () => '/factors' },
    ],
  },
];

/**
 * The workspace and project switchers: a select and a button each, so choosing with the arrow keys
 * changes nothing until the button (WCAG 2.1 SC 3.2.2). The project list is the open workspace's.
 */
function switchers(f: Frame): SafeHtml {
  const workspaces =
    f.workspaces.length > 1
      ? html`<form method="get" action="/dashboard/switch"><label for="switch-workspace">Workspace</label>
<select id="switch-workspace" name="workspace">${f.workspaces.map(
          (w) => html`<option value="${w.slug}"${w.slug === f.workspace && html` selected`}>${w.slug}${w.own ? ' (yours)' : ''}</option>`,
        )}</select><button class="small secondary">Go</button></form>`
      : '';
  const inWorkspace = f.projects.filter((p) => p.workspace === f.workspace);
  const projects =
    inWorkspace.length > 0
      ? html`<form method="get" action="/dashboard/switch"><label for="switch-project">Project</label>
<select id="switch-project" name="project">${inWorkspace.map(
          (p) => html`<option value="${p.slug}"${p.slug === f.project?.slug && html` selected`}>${p.name} (${p.role})</option>`,
        )}</select><button class="small secondary">Go</button></form>`
      : '';
  const own =
    f.workspace === f.ownWorkspace || !f.ownWorkspace
      ? ''
      : html`<a class="own" href="/dashboard/switch?workspace=${encodeURIComponent(f.ownWorkspace)}">Your workspace</a>`;
  return html`${workspaces}${projects}${own}`;
}

function nav(f: Frame): SafeHtml {
  return html`<nav class="sections" aria-label="Dashboard sections">${NAV.map(
    (group) =>
      html`<h2>${group.heading === 'Workspace' ? `Workspace ${ownedWorkspace(f)}` : group.heading}</h2><ul>${group.items
        .filter((i) => !i.needsProject || f.project)
        .map((i) => {
          const badge =
            i.section === 'requests' && f.pendingRequests > 0
              ? html`<span class="badge" aria-label="${f.pendingRequests} pending">${f.pendingRequests}</span>`
              : '';
          return html`<li><a href="${i.href(f)}"${i.section === f.section ? html` aria-current="page"` : ''}>${i.label}${badge}</a></li>`;
        })}</ul>`,
  )}</nav>`;
}

/** A complete dashboard page around `body`; `actions` (a page's primary button) sit beside the title. */
export function dashboardPage(f: Frame, title: string, body: SafeHtml, actions?: SafeHtml): SafeHtml {
  const flash = f.flash
    ? html`<p class="flash ${f.flash.kind}" role="${f.flash.kind === 'error' ? 'alert' : 'status'}">${f.flash.text}</p>`
    : '';
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · svc dashboard</title><style>${CSS}</style></head>
<body><a class="skip" href="#main">Skip to content</a>
<header><a class="brand" href="/dashboard">svc</a>${switchers(f)}
<div class="who">${f.email} · <a href="/signout">Sign out</a></div></header>
<div class="layout">${nav(f)}
<main id="main">${actions ? html`<div class="title-row"><h1>${title}</h1>${actions}</div>` : html`<h1>${title}</h1>`}${flash}${body}</main></div>
<footer>Workspace ${f.workspace}${f.project && html` · project ${f.project.slug}`}</footer>
<script>${trustedHtml(SCRIPT)}</script>
</body></html>`;
}

/** A POST form with the CSRF field. */
export function postForm(f: Frame, action: string, fields: SafeHtml | '', button: SafeHtml, cls = ''): SafeHtml {
  const submit = cls === 'inline' ? button : html`<div>${button}</div>`;
  return html`<form method="post" action="${action}"${cls ? html` class="${cls}"` : ''}>${csrfField(f.csrf)}${fields}${submit}</form>`;
}
