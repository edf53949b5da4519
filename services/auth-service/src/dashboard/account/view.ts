/**
 * You > Account (docs/dashboard.md "Account"): the address, personal keys, authorized apps, the
 * person's access requests and browser sessions, each revocable; and the password page.
 */
import type { AccountInfo, MyRequestRow } from '@svc/management';
import type { BrowserSession } from '../../http/web-session.ts';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { table, when } from '../parts.ts';

export type AccountPage = Omit<AccountInfo, 'apps'> & {
  /** `verified`: a first-party svc app; any other name is what the app registered. */
  apps: (AccountInfo['apps'][number] & { verified: boolean })[];
  sessions: BrowserSession[];
  /** Access the person asked for, and what became of it. */
  requests: MyRequestRow[];
  /** The cursor of the next page of them, or null. */
  olderRequests: string | null;
  /** Mail can be sent (a confirmation link can be asked for again). */
  emailOn: boolean;
};

/** A browser's User-Agent said briefly: the browser and the system, when they can be told. */
function browserOf(agent: string): string {
  const browser = /Edg\//.test(agent)
    ? 'Edge'
    : /Firefox\//.test(agent)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(agent)
        ? 'Chrome'
        : /Safari\//.test(agent)
          ? 'Safari'
          : /^curl\//.test(agent)
            ? 'curl'
            : 'A browser';
  const system = /Android/.test(agent)
    ? 'Android'
    : /iPhone|iPad/.test(agent)
      ? 'iOS'
      : /Windows/.test(agent)
        ? 'Windows'
        : /Mac OS X/.test(agent)
          ? 'macOS'
          : /Linux/.test(agent)
            ? 'Linux'
            : '';
  return system ? `${browser} on ${system}` : browser;
}

/** A one-button POST form inside a table row. */
const rowButton = (f: Frame, action: string, button: SafeHtml) => postForm(f, action, '', button, 'inline');

function tables(f: Frame, v: AccountPage): SafeHtml {
  const keys = v.personalKeys.map((k) => [
    k.client,
    html`<code>${k.prefix}</code>`,
    when(k.createdAt),
    when(k.expiresAt),
    when(k.lastUsedAt, 'not yet'),
    rowButton(
      f,
      `/dashboard/account/keys/${encodeURIComponent(k.id)}/revoke`,
      html`<button type="submit" class="small danger">Revoke</button>`,
    ),
  ]);
  const apps = v.apps.map((a) => [
    html`<bdi>${a.client}</bdi>${!a.verified && html` <span class="muted">(not verified by svc)</span>`}`,
    a.projects.join(', ') || '-',
    when(a.createdAt),
    when(a.expiresAt),
    rowButton(
      f,
      `/dashboard/account/apps/${encodeURIComponent(a.id)}/revoke`,
      html`<button type="submit" class="small danger" aria-label="Revoke ${a.client}">Revoke</button>`,
    ),
  ]);
  const requests = v.requests.map((r) => [
    r.project,
    r.level,
    r.status,
    r.grantedLevel ?? '-',
    when(r.createdAt),
    when(r.decidedAt, 'not yet'),
  ]);
  const sessions = v.sessions.map((s) => [
    html`${browserOf(s.agent)}${s.current && html` <strong>(this browser)</strong>`}`,
    when(s.createdAt),
    s.current
      ? html`<a href="/signout">Sign out</a>`
      : rowButton(
          f,
          `/dashboard/account/sessions/${encodeURIComponent(s.handle)}/end`,
          html`<button type="submit" class="small danger">End</button>`,
        ),
  ]);
  const others = v.sessions.filter((s) => !s.current).length;
  return html`<h2>Personal keys</h2><p class="muted">Made by <code>svc login</code> on your devices; each reaches every project you can access.</p>
${table('Personal keys', ['Made by', 'Key', 'Created', 'Expires', 'Last used', 'Revoke'], keys, 'No personal keys.')}
<h2>Authorized apps</h2><p class="muted">MCP clients you allowed to act for you with OAuth, and the projects they reach. Revoking one stops its tokens at once; it must ask you again.</p>
${table('Authorized apps', ['App', 'Projects (level)', 'Authorized', 'Until', 'Revoke'], apps, 'No apps authorized.')}
<h2>Your access requests</h2>
${table(
  'Your access requests',
  ['Project', 'Asked for', 'Status', 'Granted', 'Asked', 'Decided'],
  requests,
  'You have asked for no access. When a tool is refused for your level, the MCP client can ask with svc_request_access.',
)}${v.olderRequests && html`<p><a href="/dashboard/account?requests=${encodeURIComponent(v.olderRequests)}">Older access requests</a></p>`}
<h2>Sessions</h2><p class="muted">Browsers signed in to your account.</p>
${table('Sessions', ['Browser', 'Signed in', 'End'], sessions, 'No sessions.')}${
    others > 1 &&
    postForm(
      f,
      '/dashboard/account/sessions/end-others',
      '',
      html`<button type="submit" class="secondary">End every other session</button>`,
    )
  }`;
}

export function accountPage(f: Frame, v: AccountPage): SafeHtml {
  const verified = v.emailVerified
    ? html` <span class="status-active">(confirmed)</span>`
    : html` <span class="status-rolling">(not confirmed yet)</span>${
        v.emailOn &&
        rowButton(f, '/dashboard/account/verify-email', html`<button type="submit" class="small secondary">Send the link again</button>`)
      }`;
  return dashboardPage(
    f,
    'Account',
    html`<p>Signed in as <strong>${v.email}</strong>${verified}</p><p><a href="/dashboard/account/password">Change password</a> · <a href="/factors">Second factors</a></p>
${tables(f, v)}`,
  );
}

export function changePasswordPage(f: Frame, v: { error?: { field: string; message: string } }): SafeHtml {
  const err = (field: string) => v.error?.field === field && html` aria-invalid="true" aria-describedby="${field}-error" autofocus`;
  const line = (field: string) => v.error?.field === field && html`<p class="error" id="${field}-error">${v.error.message}</p>`;
  return dashboardPage(
    f,
    'Change password',
    postForm(
      f,
      '/dashboard/account/password',
      html`<label for="current">Current password</label><input id="current" name="current" type="password" autocomplete="current-password" required${err('current')}>${line('current')}
<label for="password">New password (at least 12 characters; a phrase of a few words works well)</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="12" maxlength="256" required${err('password')}>${line('password')}`,
      html`<button type="submit">Change password</button>`,
    ),
  );
}
