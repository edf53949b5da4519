/**
 * Project > Upstream servers (docs/dashboard.md, docs/upstream-servers.md): the project's MCP
 * servers svc stands in front of, each with its URL's origin, its tools, when they were last read
 * and any problem, a row menu, and the form that adds one (its credential's value is never shown
 * again, not even on a refused form). Pure functions of what they show.
 */
import { STEP_UP_MINUTES } from '@svc/management/contract';
import { UPSTREAM_LIMITS, type UpstreamView } from '@svc/upstreams';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { ago, cell, emptyState, options, table } from '../parts.ts';
import { DEFAULT_TIMEOUT_SECONDS, TIMEOUT_SECONDS } from './forms.ts';

export const upstreamsPath = (slug: string) => `/dashboard/projects/${encodeURIComponent(slug)}/upstreams`;
export const upstreamPath = (slug: string, name: string) => `${upstreamsPath(slug)}/${encodeURIComponent(name)}`;
export const toolPath = (slug: string, name: string, tool: string) => `${upstreamPath(slug, name)}/tools/${encodeURIComponent(tool)}`;

/**
 * The guide to putting svc in front of one's own server, in the repository the release is built
 * from (docs/publishing.md "Publishing to npm" names it): docs/upstream-servers.md.
 */
const GUIDE_URL = 'https://github.com/svc-dev/svc/blob/main/docs/upstream-servers.md';

/** A refused add: what was sent (never the credential's value) and the refusal at its field. */
export interface SentServer {
  name: string;
  url: string;
  timeout: string;
  header: string;
  error?: { message: string; field?: string | undefined };
}

export interface UpstreamsPage {
  servers: UpstreamView[];
  now: number;
  /** The gateway's public URL: the `iss` of the tokens the servers receive. */
  issuer: string;
  sent?: SentServer;
}

/** The tools an admin has yet to look at: new ones (off) and changed ones (offered as they were). */
export const waiting = (v: UpstreamView) => v.tools.filter((t) => t.state === 'new' || t.state === 'changed').length;

const TIMEOUTS = TIMEOUT_SECONDS.map((s) => ({
  value: s,
  label: `${s} ${s === '1' ? 'second' : 'seconds'}${s === DEFAULT_TIMEOUT_SECONDS ? ' (default)' : ''}`,
}));

/**
 * The form's fields, as sent, with the refusal at its field: the service's `credential` (a header
 * MCP or HTTP uses, a value missing or too long) is told under the pair, both marked.
 */
function addFields(s: SentServer): SafeHtml {
  const field = s.error?.field ?? '';
  const refused = (name: string) => field === name || (field === 'credential' && name.startsWith('credential_'));
  /** A field's hint, and the refusal when it is the field refused (focused then: the first of a pair). */
  const described = (name: string, hint: string) =>
    refused(name)
      ? html` aria-describedby="${`${hint} ${field}-error`.trim()}" aria-invalid="true"${name !== 'credential_value' || field !== 'credential' ? html` autofocus` : ''}`
      : hint && html` aria-describedby="${hint}"`;
  const errLine = (name: string) => field === name && html`<p class="error" id="${name}-error">${s.error?.message}</p>`;
  const known = ['name', 'url', 'timeout', 'credential', 'credential_header', 'credential_value'];
  return html`${s.error && !known.includes(field) && html`<p class="error" role="alert">${s.error.message}</p>`}
<label for="upstream-name">Name</label><input id="upstream-name" name="name" type="text" required maxlength="${UPSTREAM_LIMITS.nameLength}" autocapitalize="off" spellcheck="false" value="${s.name}"${described('name', 'upstream-name-hint')}>
<p class="muted hint" id="upstream-name-hint">Lower-case letters, digits and hyphens, starting with a letter: its tools are listed as <code>name__tool</code>.</p>${errLine('name')}
<label for="upstream-url">URL</label><input id="upstream-url" name="url" type="text" inputmode="url" required maxlength="${UPSTREAM_LIMITS.urlLength}" autocapitalize="off" spellcheck="false" value="${s.url}"${described('url', 'upstream-url-hint')}>
<p class="muted hint" id="upstream-url-hint">Its Streamable HTTP endpoint, such as <code>https://notes.internal.example/mcp</code>. svc reads its tools at once; your server checks svc's tokens against this URL exactly.</p>${errLine('url')}
<label for="upstream-timeout">Timeout of one call</label><select id="upstream-timeout" name="timeout"${described('timeout', '')}>${options(TIMEOUTS, s.timeout || DEFAULT_TIMEOUT_SECONDS)}</select>${errLine('timeout')}
<fieldset><legend>Credential (optional)</legend><p class="muted hint" id="credential-hint">A static secret svc sends with every request, such as an API key your server already checks. It is stored sealed and never shown again, here or in the API.</p>
<label for="upstream-credential-header">Header</label><input id="upstream-credential-header" name="credential_header" type="text" autocapitalize="off" spellcheck="false" placeholder="X-Api-Key" value="${s.header}"${described('credential_header', 'credential-hint')}>${errLine('credential_header')}
<label for="upstream-credential-value">Value</label><input id="upstream-credential-value" name="credential_value" type="password" autocomplete="off"${described('credential_value', 'credential-hint')}>${errLine('credential_value')}${errLine('credential')}</fieldset>`;
}

/** A server's row actions in one menu (as the key list's): its page, a refresh, removal (confirmed first). */
function actionsMenu(f: Frame, v: UpstreamView): SafeHtml {
  const at = upstreamPath(f.project!.slug, v.upstream.name);
  return html`<details class="menu"><summary aria-label="Actions for ${v.upstream.name}">Actions ▾</summary><ul>
<li><a href="${at}">Tools and settings</a></li>
<li>${postForm(f, `${at}/refresh`, '', html`<button type="submit">Read its tools again</button>`)}</li>
<li><a href="${at}/remove" class="danger">Remove</a></li></ul></details>`;
}

/** What an upstream server is and how one gets here: said where there is none yet. */
function noServers(f: Frame, issuer: string): SafeHtml {
  const slug = f.project!.slug;
  return emptyState(
    'No upstream servers yet.',
    html`<p>An upstream server is an MCP server of your own that svc stands in front of. Its tools are listed to this project's clients beside svc's own, as <code>name__tool</code>, under the project's keys, levels, rate limits and audit log; each call is forwarded to it with a short-lived token svc signs for it alone, never the caller's key or token.</p>
<p>Your server checks that token (issuer <code>${issuer}</code>, audience its URL as registered here) with <code>@svc/upstream-auth</code> or any JWT library: <a href="${GUIDE_URL}">Put svc in front of your MCP server</a> (docs/upstream-servers.md) shows how.</p>
<p>Add the first one <a href="#add-server">below</a>, or with the API: <code>POST /api/v1/projects/${slug}/upstreams</code>.</p>`,
  );
}

export function upstreamsPage(f: Frame, v: UpstreamsPage): SafeHtml {
  const rows = v.servers.map((s) => {
    const waits = waiting(s);
    return [
      html`<a href="${upstreamPath(f.project!.slug, s.upstream.name)}">${s.upstream.name}</a>`,
      html`<code>${new URL(s.upstream.url).origin}</code>`,
      cell('num', html`${s.tools.length}${waits > 0 && html`<br><span class="pill state-changed">${waits} to review</span>`}`),
      ago(s.upstream.refreshedAt, v.now),
      s.upstream.problem ? html`<span class="status-revoked">${s.upstream.problem}</span>` : html`<span class="muted">none</span>`,
      actionsMenu(f, s),
    ];
  });
  const full = v.servers.length >= UPSTREAM_LIMITS.perProject;
  const add = full
    ? html`<p class="muted">This project has ${UPSTREAM_LIMITS.perProject} servers, the most it may have: remove one to add another.</p>`
    : html`${postForm(
        f,
        upstreamsPath(f.project!.slug),
        addFields(v.sent ?? { name: '', url: '', timeout: DEFAULT_TIMEOUT_SECONDS, header: '' }),
        html`<button type="submit">Add server</button>`,
      )}<p class="muted">Adding a server asks for your second factor when you have one and have not used it in the last ${STEP_UP_MINUTES} minutes, and for a confirmed email address: its tools reach your project's data.</p>`;
  return dashboardPage(
    f,
    'Upstream servers',
    html`${v.servers.length > 0 && html`<p class="muted">MCP servers of your own whose tools this project's clients see as <code>name__tool</code>. Each call reaches the server with a token svc signs (issuer <code>${v.issuer}</code>), never the caller's key. Times are relative; hover one for the exact time.</p>`}
${table('Upstream servers', ['Name', 'URL', '#Tools', 'Last refreshed', 'Problem', 'Actions'], rows, noServers(f, v.issuer))}
<h2 id="add-server">Add a server</h2>${add}`,
    full ? undefined : html`<a class="button" href="#add-server">Add server</a>`,
  );
}
