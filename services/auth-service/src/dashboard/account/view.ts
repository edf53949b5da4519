/**
 * You > Account (docs/dashboard.md "Account"): the address, personal keys, authorized apps, the
 * person's access requests and browser sessions, each revocable; and the password page.
 */
import type { AccountInfo, AppRow, MyRequestRow } from '@svc/management';
import type { BrowserSession } from '../../http/web-session.ts';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { ago, emptyState, relative, table } from '../parts.ts';
import { deviceOf } from './user-agent.ts';

export type AccountPage = AccountInfo & {
  /** `verified`: a first-party svc app; any other name is what the app registered. */
  apps: (AppRow & { verified: boolean })[];
  sessions: BrowserSession[];
  /** Access the person asked for, and what became of it. */
  requests: MyRequestRow[];
  /** The cursor of the next page of them, or null. */
  olderRequests: string | null;
  /** Mail can be sent (a confirmation link can be asked for again). */
  emailOn: boolean;
  now: number;
};

/** A one-button POST form inside a table row. */
const rowButton = (f: Frame, action: string, button: SafeHtml) => postForm(f, action, '', button, 'inline');

/** Sessions that read alike (same device, same last address), this browser's always apart and first. */
interface SessionGroup {
  device: string;
  address: string;
  sessions: BrowserSession[];
}

function groupSessions(sessions: BrowserSession[]): SessionGroup[] {
  const groups = new Map<string, SessionGroup>();
  const current = sessions.filter((s) => s.current);
  for (const s of [...current, ...sessions.filter((x) => !x.current)]) {
    const device = deviceOf(s.agent);
    const key = s.current ? 'current' : `${device}|${s.seenAddress}`;
    const g = groups.get(key) ?? { device, address: s.seenAddress, sessions: [] };
    g.sessions.push(s);
    groups.set(key, g);
  }
  return [...groups.values()];
}

/**
 * The sessions: device (browser and system), address, last activity and sign-in, this browser
 * marked; a group of alike sessions is one row whose End lists each (signed in when, End).
 */
function sessionsTable(f: Frame, v: AccountPage): SafeHtml {
  const end = (s: BrowserSession, label: string) =>
    rowButton(
      f,
      `/dashboard/account/sessions/${encodeURIComponent(s.handle)}/end`,
      html`<button type="submit" class="small danger" aria-label="${label}">End</button>`,
    );
  const rows = groupSessions(v.sessions).map((g) => {
    const [first] = g.sessions;
    if (!first) return [];
    const lastSeen = Math.max(...g.sessions.map((s) => s.seenAt));
    const firstIn = Math.min(...g.sessions.map((s) => s.createdAt));
    const device = html`${g.device}${first.current && html` <strong class="status-active">· this browser</strong>`}${
      g.sessions.length > 1 && html`<br><span class="muted">${g.sessions.length} sessions</span>`
    }`;
    const action = first.current
      ? html`<a href="/signout">Sign out</a>`
      : g.sessions.length === 1
        ? end(first, `End the session of ${g.device} at ${g.address || 'an unknown address'}`)
        : html`<details class="menu"><summary aria-label="End one of ${g.sessions.length} sessions of ${g.device}">End… ▾</summary><ul>${g.sessions.map(
            (s) =>
              html`<li>signed in ${ago(s.createdAt, v.now)} ${end(s, `End the session of ${g.device} signed in ${relative(s.createdAt, v.now)}`)}</li>`,
          )}</ul></details>`;
    return [
      device,
      g.address ? html`<code>${g.address}</code>` : html`<span class="muted">not recorded</span>`,
      ago(lastSeen, v.now),
      g.sessions.length > 1 ? html`first ${ago(firstIn, v.now)}` : ago(firstIn, v.now),
      action,
    ];
  });
  return table(
    'Sessions',
    ['Device', 'Address', 'Last active', 'Signed in', 'End'],
    rows,
    emptyState('No browser sessions.', html`<p>Each browser you sign in from is listed here.</p>`),
  );
}

function tables(f: Frame, v: AccountPage): SafeHtml {
  const keys = v.personalKeys.map((k) => [
    k.client,
    html`<code>${k.prefix}</code>`,
    ago(k.createdAt, v.now),
    ago(k.expiresAt, v.now),
    ago(k.lastUsedAt, v.now, 'not yet'),
    rowButton(
      f,
      `/dashboard/account/keys/${encodeURIComponent(k.id)}/revoke`,
      html`<button type="submit" class="small danger">Revoke</button>`,
    ),
  ]);
  const apps = v.apps.map((a) => [
    html`<bdi>${a.client}</bdi>${!a.verified && html` <span class="muted">(not verified by svc)</span>`}`,
    a.projects.join(', ') || '-',
    ago(a.createdAt, v.now),
    ago(a.lastUsedAt, v.now, 'not yet'),
    ago(a.expiresAt, v.now),
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
    ago(r.createdAt, v.now),
    ago(r.decidedAt, v.now, 'not yet'),
  ]);
  const others = v.sessions.filter((s) => !s.current).length;
  return html`<h2>Personal keys</h2><p class="muted">Made by <code>svc login</code> on your devices; each reaches every project you can access.</p>
${table('Personal keys', ['Made by', 'Key', 'Created', 'Expires', 'Last used', 'Revoke'], keys, emptyState('No personal keys.', html`<p>Running <code>svc login</code> on a computer makes one for the CLI there, after you approve it in this browser; it is listed here until it expires or you revoke it.</p>`))}
<h2>Connected apps and agents</h2><p class="muted">MCP clients and agents you allowed to act for you with OAuth, the projects and level they reach, and when they last used it. Revoking one stops its tokens at once, and those of any agent it handed a token to; it must ask you again.</p>
${table('Connected apps and agents', ['App', 'Projects (level)', 'Authorized', 'Last used', 'Until', 'Revoke'], apps, emptyState('No apps authorized.', html`<p>When an MCP client (Claude, Cursor, VS Code…) connects to a project with OAuth, you approve it on a consent page and it shows here, with the projects and level it reaches.</p>`))}
<h2>Your access requests</h2>
${table(
  'Your access requests',
  ['Project', 'Asked for', 'Status', 'Granted', 'Asked', 'Decided'],
  requests,
  emptyState(
    'You have asked for no access.',
    html`<p>When a tool is refused for your level, ask a project's admins: your MCP client can with the <code>svc_request_access</code> tool, or run <code>svc request-access --project P --level EDITOR --reason "…"</code>. Each request and its decision shows here.</p>`,
  ),
)}${v.olderRequests && html`<p><a href="/dashboard/account?requests=${encodeURIComponent(v.olderRequests)}">Older access requests</a></p>`}
<h2>Sessions</h2><p class="muted">Browsers signed in to your account: the device from its User-Agent, the address of its last request, and when that was. Sessions of the same device and address are grouped. One you do not recognise: end it, then change your password.</p>
${sessionsTable(f, v)}${
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
