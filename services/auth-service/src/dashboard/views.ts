/**
 * The dashboard's pages as pure functions of what they show (docs/dashboard.md). Routes gather
 * the data through the management layer and pass it here; nothing here reads storage or decides
 * who may do what (the `can*` fields say what the management layer allows this person).
 */
import {
  KEY_DEFAULTS,
  LEVELS,
  type AccountInfo,
  type AuditRow,
  type BotRow,
  type InvitationRow,
  type KeyRow,
  type MemberRow,
  type MyRequestRow,
  type NewKey,
  type RequestRow,
  type Usage,
} from '@svc/management';
import type { BrowserSession } from '../http/web-session.ts';
import { esc } from '../pages/layout.ts';
import { dashboardPage, postForm, type Frame } from './frame.ts';

/** Expiry choices offered when creating a key; the value is what the management layer parses. */
const EXPIRY_CHOICES = [
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
  { value: '90d', label: '90 days' },
  { value: '365d', label: '1 year' },
  { value: 'never', label: 'No expiry' },
] as const;
/** Overlap choices when rolling a key: how long the old key keeps working. */
const OVERLAP_CHOICES = [
  { value: '0m', label: 'No overlap: the old key stops now' },
  { value: '1h', label: '1 hour' },
  { value: '24h', label: '24 hours' },
  { value: '7d', label: '7 days' },
] as const;

const when = (ms: number | null, none = 'never') =>
  ms === null
    ? esc(none)
    : `<time datetime="${new Date(ms).toISOString()}">${esc(new Date(ms).toISOString().slice(0, 16).replace('T', ' '))} UTC</time>`;

function age(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 90) return `${s} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 129_600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} days`;
}

const options = (values: readonly { value: string; label: string }[], selected?: string) =>
  values.map((o) => `<option value="${esc(o.value)}"${o.value === selected ? ' selected' : ''}>${esc(o.label)}</option>`).join('');

const levelOptions = (levels: readonly string[], selected?: string) =>
  options(
    levels.map((l) => ({ value: l, label: l })),
    selected,
  );

/** Each cell of a row names its column (data-label), which a phone shows beside the value. */
function labelled(row: string, head: string[]): string {
  let i = 0;
  return row.replace(/<td(?=[\s>])/g, () => `<td data-label="${esc((head[i++] ?? '').replace(/^#/, ''))}"`);
}

function table(caption: string, head: string[], rows: string[], empty: string): string {
  if (rows.length === 0) return `<p class="muted">${esc(empty)}</p>`;
  return `<div class="table" role="region" aria-label="${esc(caption)}" tabindex="0"><table><caption class="skip">${esc(caption)}</caption>
<thead><tr>${head.map((h) => `<th scope="col"${h.startsWith('#') ? ' class="num"' : ''}>${esc(h.replace(/^#/, ''))}</th>`).join('')}</tr></thead>
<tbody>${rows.map((r) => labelled(r, head)).join('\n')}</tbody></table></div>`;
}

/** The one place a secret is shown: once, with a copy button and the warning. */
function secretBox(id: string, value: string, what: string): string {
  return `<div class="secret" role="status"><p><strong>Copy this ${esc(what)} now: you will not see it again.</strong></p>
<code id="${esc(id)}">${esc(value)}</code><button type="button" class="small" data-copy="${esc(id)}" hidden>Copy</button></div>`;
}

export interface KeysPage {
  keys: KeyRow[];
  /** Levels this person may create keys at (an EDITOR cannot create ADMIN keys); empty: no creating. */
  creatableLevels: readonly string[];
  canRevoke: boolean;
  created?: NewKey;
  error?: { field: 'name' | 'level' | 'expires' | 'rateLimit'; message: string };
  values?: { name?: string; level?: string; expires?: string; rateLimit?: string };
  now: number;
}

export function keysPage(f: Frame, v: KeysPage): string {
  const base = `/dashboard/projects/${encodeURIComponent(f.project!.slug)}/keys`;
  const created = v.created
    ? `${secretBox('new-key', v.created.key, 'key')}<p class="muted">${esc(v.created.name)}, ${esc(v.created.level)}, expires ${when(v.created.expiresAt)}${
        v.created.replacedUntil !== undefined ? `; the key it replaces works until ${when(v.created.replacedUntil ?? v.now)}` : ''
      }. Put it where your app reads it (an environment variable such as SVC_API_KEY), never in code.</p>`
    : '';
  const err = (field: string) => (v.error?.field === field ? ` aria-invalid="true" aria-describedby="${field}-error" autofocus` : '');
  const errLine = (field: string) => (v.error?.field === field ? `<p class="error" id="${field}-error">${esc(v.error.message)}</p>` : '');
  const form = v.creatableLevels.length
    ? `<h2>Create API key</h2>${postForm(
        f,
        base,
        `<label for="key-name">Name</label><input id="key-name" name="name" type="text" maxlength="80" required value="${esc(v.values?.name ?? '')}"${err('name')}>${errLine('name')}
<label for="key-level">Access level</label><select id="key-level" name="level"${err('level')}>${levelOptions(v.creatableLevels, v.values?.level ?? KEY_DEFAULTS.level)}</select>${errLine('level')}
<label for="key-expires">Expires</label><select id="key-expires" name="expires"${err('expires')}>${options(EXPIRY_CHOICES, v.values?.expires ?? KEY_DEFAULTS.expires)}</select>${errLine('expires')}
${limitField(v.values?.rateLimit ?? '', v.error?.field === 'rateLimit' ? v.error.message : undefined)}`,
        '<button type="submit">Create API key</button>',
      )}`
    : '<p class="muted">Your role on this project lets you see its keys, not create them.</p>';
  const rows = v.keys.map((k) => {
    const actions =
      v.canRevoke && (k.status === 'active' || k.status === 'expiring')
        ? [
            `<a href="${esc(`${base}/${encodeURIComponent(k.id)}/roll`)}">Roll</a>`,
            `<a href="${esc(`${base}/${encodeURIComponent(k.id)}/limit`)}">Limit</a>`,
            `<a href="${esc(`${base}/${encodeURIComponent(k.id)}/revoke`)}">Revoke</a>`,
          ].join(' · ')
        : '';
    return `<tr><td>${esc(k.name)}</td><td>${esc(k.level)}</td><td><code>${esc(k.prefix)}</code></td><td>${when(k.createdAt)}</td><td>${when(k.expiresAt)}</td><td>${when(k.lastUsedAt, 'not yet')}</td><td>${k.rateLimit === null ? 'plan' : `${k.rateLimit}/min`}</td><td class="status-${k.status}">${esc(k.status)}</td><td>${actions}</td></tr>`;
  });
  return dashboardPage(
    f,
    'API Keys',
    `${created}<p class="muted">Keys of project ${esc(f.project!.slug)}. A key is shown once, when it is created; the list shows its first characters only.</p>
${table('API keys', ['Name', 'Level', 'Key', 'Created', 'Expires', 'Last used', 'Limit', 'Status', 'Actions'], rows, 'No keys yet.')}${form}`,
  );
}

/** The optional per-key limit field (docs/management.md "Per-key limits"), its hint and any error tied to it. */
function limitField(value: string, error?: string): string {
  const described = error ? 'key-rate-limit-hint rateLimit-error' : 'key-rate-limit-hint';
  return `<label for="key-rate-limit">Requests per minute (optional)</label><input id="key-rate-limit" name="rateLimit" type="number" inputmode="numeric" min="1" step="1" value="${esc(value)}" aria-describedby="${described}"${error ? ' aria-invalid="true" autofocus' : ''}>
<p class="muted hint" id="key-rate-limit-hint">Empty: the plan's limit. A lower number keeps one busy key (a CI job, say) from using the whole workspace's allowance.</p>${
    error ? `<p class="error" id="rateLimit-error">${esc(error)}</p>` : ''
  }`;
}

export function keyLimitPage(f: Frame, key: KeyRow, error?: string, value?: string): string {
  const action = `/dashboard/projects/${encodeURIComponent(f.project!.slug)}/keys/${encodeURIComponent(key.id)}/limit`;
  return dashboardPage(
    f,
    'Key rate limit',
    `<p>Requests per minute for <strong>${esc(key.name)}</strong> (<code>${esc(key.prefix)}</code>). It applies within the workspace's plan limit; the key is refused with 429 once it reaches its own.</p>
${postForm(f, action, limitField(value ?? (key.rateLimit === null ? '' : String(key.rateLimit)), error), '<button type="submit">Save limit</button>')}
<p><a href="/dashboard/projects/${encodeURIComponent(f.project!.slug)}/keys">Cancel</a></p>`,
  );
}

export function revokeKeyPage(f: Frame, key: KeyRow): string {
  const action = `/dashboard/projects/${encodeURIComponent(f.project!.slug)}/keys/${encodeURIComponent(key.id)}/revoke`;
  return dashboardPage(
    f,
    'Revoke API key',
    `<p>Revoke <strong>${esc(key.name)}</strong> (<code>${esc(key.prefix)}</code>, ${esc(key.level)})? Every app using it is refused within a second. This cannot be undone.</p>
${postForm(f, action, '', '<button type="submit" class="danger">Revoke key</button>')}<p><a href="/dashboard/projects/${encodeURIComponent(f.project!.slug)}/keys">Cancel</a></p>`,
  );
}

export function rollKeyPage(f: Frame, key: KeyRow): string {
  const action = `/dashboard/projects/${encodeURIComponent(f.project!.slug)}/keys/${encodeURIComponent(key.id)}/roll`;
  return dashboardPage(
    f,
    'Roll API key',
    `<p>Roll <strong>${esc(key.name)}</strong> (<code>${esc(key.prefix)}</code>): a new key with the same name and level is created, and the old one keeps working for the overlap you choose, so you can deploy the new one first.</p>
${postForm(f, action, `<label for="overlap">Overlap</label><select id="overlap" name="overlap">${options(OVERLAP_CHOICES, KEY_DEFAULTS.overlap)}</select>`, '<button type="submit">Roll key</button>')}
<p><a href="/dashboard/projects/${encodeURIComponent(f.project!.slug)}/keys">Cancel</a></p>`,
  );
}

export function requestsPage(f: Frame, v: { requests: RequestRow[]; canDecide: boolean; now: number }): string {
  const base = `/dashboard/projects/${encodeURIComponent(f.project!.slug)}/requests`;
  const pending = v.requests.filter((r) => r.status === 'pending');
  const decided = v.requests.filter((r) => r.status !== 'pending');
  const decide = (r: RequestRow) =>
    v.canDecide
      ? `${postForm(
          f,
          `${base}/${encodeURIComponent(r.id)}/approve`,
          `<label for="level-${esc(r.id)}" class="skip">Level for ${esc(r.requester)}</label><select id="level-${esc(r.id)}" name="level">${levelOptions(LEVELS, r.level)}</select>`,
          `<button type="submit" class="small">Approve</button>`,
          'inline',
        )} ${postForm(f, `${base}/${encodeURIComponent(r.id)}/deny`, '', `<button type="submit" class="small danger">Deny</button>`, 'inline')}`
      : '';
  return dashboardPage(
    f,
    'Access requests',
    `<h2>Pending (${pending.length})</h2>${table(
      'Pending access requests',
      ['Requester', 'Level asked', 'Reason', 'Waiting', 'Decision'],
      pending.map(
        (r) =>
          `<tr><td>${esc(r.requester)}</td><td>${esc(r.level)}</td><td>${esc(r.reason) || '<span class="muted">none given</span>'}</td><td>${esc(age(r.createdAt, v.now))}</td><td>${decide(r)}</td></tr>`,
      ),
      'Nobody is waiting for access.',
    )}<h2>Decided</h2>${table(
      'Decided access requests',
      ['Requester', 'Level asked', 'Reason', 'Asked', 'Decision', 'Level granted', 'Decided by'],
      decided.map(
        (r) =>
          `<tr><td>${esc(r.requester)}</td><td>${esc(r.level)}</td><td>${esc(r.reason)}</td><td>${when(r.createdAt)}</td><td class="status-${r.status === 'approved' ? 'active' : 'revoked'}">${esc(r.status)}</td><td>${esc(r.grantedLevel ?? '-')}</td><td>${esc(r.decidedBy ?? '-')}</td></tr>`,
      ),
      'No decisions yet.',
    )}`,
  );
}

export function membersPage(
  f: Frame,
  v: { members: MemberRow[]; invitations: InvitationRow[]; canManage: boolean; error?: string; email?: string },
): string {
  const base = `/dashboard/projects/${encodeURIComponent(f.project!.slug)}/members`;
  const rows = v.members.map((m) => {
    const manage =
      v.canManage && !m.owner
        ? `${postForm(
            f,
            `${base}/${encodeURIComponent(m.userId)}/role`,
            `<label for="role-${esc(m.userId)}" class="skip">Role of ${esc(m.email)}</label><select id="role-${esc(m.userId)}" name="role">${levelOptions(LEVELS, m.role)}</select>`,
            '<button type="submit" class="small secondary">Change</button>',
            'inline',
          )} ${postForm(f, `${base}/${encodeURIComponent(m.userId)}/remove`, '', '<button type="submit" class="small danger">Remove</button>', 'inline')}`
        : m.owner
          ? '<span class="muted">workspace owner</span>'
          : '';
    return `<tr><td>${esc(m.email)}</td><td>${esc(m.role)}</td><td>${manage}</td></tr>`;
  });
  const add = v.canManage
    ? `<h2>Add a member</h2>${postForm(
        f,
        base,
        `<label for="member-email">Email</label><input id="member-email" name="email" type="email" required value="${esc(v.email ?? '')}"${
          v.error ? ' aria-invalid="true" aria-describedby="member-error" autofocus' : ''
        }>${v.error ? `<p class="error" id="member-error">${esc(v.error)}</p>` : ''}
<label for="member-role">Role</label><select id="member-role" name="role">${levelOptions(LEVELS, KEY_DEFAULTS.level)}</select>`,
        '<button type="submit">Add member</button>',
      )}<p class="muted">An address without a confirmed svc account is mailed an invitation instead; it becomes a member when its owner accepts. Removing a member also revokes what they reach through this project: their OAuth grants for it and their personal keys' access to it.</p>`
    : '';
  const invitations = v.invitations.map((i) => {
    const cancel = v.canManage
      ? postForm(
          f,
          `${base.replace(/\/members$/, '/invitations')}/${encodeURIComponent(i.id)}/cancel`,
          '',
          '<button type="submit" class="small danger">Cancel</button>',
          'inline',
        )
      : '';
    return `<tr><td>${esc(i.email)}</td><td>${esc(i.role)}</td><td>${esc(i.invitedBy)}</td><td>${when(i.expiresAt)}</td><td>${cancel}</td></tr>`;
  });
  const pending = v.invitations.length
    ? table('Pending invitations', ['Email', 'Role', 'Invited by', 'Link works until', 'Manage'], invitations, '')
    : '';
  return dashboardPage(
    f,
    'Members',
    `${table('Members', ['Email', 'Role', 'Manage'], rows, 'No members besides the owner.')}${pending}${add}`,
  );
}

export function serviceAccountsPage(
  f: Frame,
  v: { bots: BotRow[]; projects: string[]; canManage: boolean; newKey?: { bot: string; key: string } },
): string {
  const base = `/dashboard/workspaces/${encodeURIComponent(f.workspace)}/service-accounts`;
  const rows = v.bots.map((b) => {
    const grants = Object.entries(b.grants)
      .map(([p, l]) => `${esc(p)}: ${esc(l)}`)
      .join('<br>');
    const manage = v.canManage
      ? `${postForm(
          f,
          `${base}/${encodeURIComponent(b.id)}/grant`,
          `<label for="grant-${esc(b.id)}" class="skip">Project for ${esc(b.name)}</label><select id="grant-${esc(b.id)}" name="project">${v.projects.map((p) => `<option>${esc(p)}</option>`).join('')}</select>
<label for="grant-level-${esc(b.id)}" class="skip">Level</label><select id="grant-level-${esc(b.id)}" name="level">${levelOptions(LEVELS, KEY_DEFAULTS.level)}</select>`,
          '<button type="submit" class="small secondary">Grant</button>',
          'inline',
        )} ${postForm(f, `${base}/${encodeURIComponent(b.id)}/rotate`, '', '<button type="submit" class="small secondary">New key</button>', 'inline')} ${postForm(
          f,
          `${base}/${encodeURIComponent(b.id)}/revoke`,
          '',
          '<button type="submit" class="small danger">Revoke</button>',
          'inline',
        )}`
      : '';
    return `<tr><td>${esc(b.name)}</td><td>${grants || '<span class="muted">no projects</span>'}</td><td>${b.keyPrefix ? `<code>${esc(b.keyPrefix)}</code>` : '<span class="muted">revoked</span>'}</td><td>${when(b.createdAt)}</td><td>${manage}</td></tr>`;
  });
  return dashboardPage(
    f,
    'Service accounts',
    `${v.newKey ? secretBox('new-key', v.newKey.key, `key of ${v.newKey.bot}`) : ''}<p class="muted">Keys for CI and other machines, owned by the workspace rather than a person. They call tools; they cannot manage keys or members.</p>
${table('Service accounts', ['Name', 'Projects', 'Key', 'Created', 'Manage'], rows, 'No service accounts yet.')}${
      v.canManage
        ? `<h2>Create a service account</h2>${postForm(f, base, '<label for="bot-name">Name</label><input id="bot-name" name="name" type="text" maxlength="80" required>', '<button type="submit">Create</button>')}`
        : ''
    }`,
  );
}

/** A horizontal bar chart as SVG, with its numbers in a table beside it (role img + title). */
function barChart(title: string, rows: { label: string; value: number }[]): string {
  if (rows.length === 0) return '';
  const max = Math.max(...rows.map((r) => r.value), 1);
  const h = 22;
  const bars = rows
    .map(
      (r, i) =>
        `<text x="0" y="${i * h + 15}" font-size="12">${esc(r.label.slice(0, 24))}</text><rect x="170" y="${i * h + 4}" width="${Math.max(1, Math.round((r.value / max) * 300))}" height="14" fill="#1f5fbf"/><text x="${176 + Math.round((r.value / max) * 300)}" y="${i * h + 15}" font-size="12">${r.value}</text>`,
    )
    .join('');
  return `<svg role="img" aria-labelledby="chart-${esc(title.replace(/\W+/g, '-'))}" viewBox="0 0 520 ${rows.length * h + 4}" width="100%" style="max-width:520px"><title id="chart-${esc(title.replace(/\W+/g, '-'))}">${esc(title)}: ${rows.map((r) => `${esc(r.label)} ${r.value}`).join(', ')}</title>${bars}</svg>`;
}

export function usagePage(f: Frame, u: Usage): string {
  const pct = (used: number, of: number) => Math.min(100, Math.round((used / Math.max(of, 1)) * 100));
  const meter = (label: string, used: number, of: number | null) =>
    `<p><strong>${esc(label)}</strong>: ${used.toLocaleString('en')} ${of === null ? '(no quota)' : `of ${of.toLocaleString('en')} (${pct(used, of)} %)`}</p>${
      of === null
        ? ''
        : `<svg role="img" aria-label="${esc(label)}: ${pct(used, of)} percent used" viewBox="0 0 300 12" width="300" height="12"><rect width="300" height="12" fill="#dfe2e6"/><rect width="${pct(used, of) * 3}" height="12" fill="${pct(used, of) >= 90 ? '#a4000f' : '#1f5fbf'}"/></svg>`
    }`;
  return dashboardPage(
    f,
    'Usage',
    `${meter('Requests this minute', u.minute.used, u.minute.limit)}${meter('Queries this month', u.month.used, u.month.quota)}
<h2>By tool, this month</h2>${barChart(
      'Calls by tool this month',
      u.perTool.map((t) => ({ label: t.tool, value: t.count })),
    )}
${table(
  'Calls by tool',
  ['Tool', '#Calls'],
  u.perTool.map((t) => `<tr><td>${esc(t.tool)}</td><td class="num">${t.count}</td></tr>`),
  'No calls this month.',
)}
<h2>By key, this month</h2>${barChart(
      'Requests by key this month',
      u.perKey.map((k) => ({ label: k.name, value: k.count })),
    )}
${table(
  'Requests by key',
  ['Key or person', 'Prefix', 'Project', '#Requests'],
  u.perKey.map(
    (k) =>
      `<tr><td>${esc(k.name)}</td><td>${k.prefix ? `<code>${esc(k.prefix)}</code>` : 'OAuth'}</td><td>${esc(k.project || '-')}</td><td class="num">${k.count}</td></tr>`,
  ),
  'No requests this month.',
)}`,
  );
}

export function auditPage(
  f: Frame,
  v: { entries: AuditRow[]; action: string; next: string | null; actions: readonly string[]; error?: string },
): string {
  const base = `/dashboard/workspaces/${encodeURIComponent(f.workspace)}/audit`;
  const filter = `<form method="get" action="${esc(base)}"><label for="audit-action">Action</label><select id="audit-action" name="action"><option value="">All actions</option>${v.actions
    .map((a) => `<option${a === v.action ? ' selected' : ''}>${esc(a)}</option>`)
    .join('')}</select><button type="submit" class="secondary">Filter</button></form>`;
  const rows = v.entries.map(
    (e) =>
      `<tr><td>${when(e.at)}</td><td>${esc(e.actor)}</td><td>${esc(e.action)}</td><td>${esc(e.target)}</td><td>${esc(e.source)}</td><td><code>${esc(e.requestId)}</code></td></tr>`,
  );
  const more = v.next
    ? `<p><a href="${esc(`${base}?cursor=${encodeURIComponent(v.next)}${v.action ? `&action=${encodeURIComponent(v.action)}` : ''}`)}">Older entries</a></p>`
    : '';
  return dashboardPage(
    f,
    'Audit log',
    `${v.error ? `<p class="error" role="alert">${esc(v.error)} Showing the newest entries.</p>` : ''}${filter}<p><a href="${esc(`${base}/export`)}" download>Export as JSON lines</a> (every entry your plan keeps; a complete file ends with a line <code>{"complete":true,...}</code>)</p>
${table('Audit log', ['Time', 'Actor', 'Action', 'Target', 'Source', 'Request'], rows, 'Nothing recorded yet.')}${more}`,
  );
}

export type AccountPage = Omit<AccountInfo, 'apps'> & {
  /** `verified`: a first-party svc app; any other name is what the app registered. */
  apps: (AccountInfo['apps'][number] & { verified: boolean })[];
  sessions: BrowserSession[];
  /** Access the person asked for, and what became of it. */
  requests: MyRequestRow[];
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

export function accountPage(f: Frame, v: AccountPage): string {
  const keys = v.personalKeys.map(
    (k) =>
      `<tr><td>${esc(k.client)}</td><td><code>${esc(k.prefix)}</code></td><td>${when(k.createdAt)}</td><td>${when(k.expiresAt)}</td><td>${when(k.lastUsedAt, 'not yet')}</td><td>${postForm(
        f,
        `/dashboard/account/keys/${encodeURIComponent(k.id)}/revoke`,
        '',
        '<button type="submit" class="small danger">Revoke</button>',
        'inline',
      )}</td></tr>`,
  );
  const apps = v.apps.map(
    (a) =>
      `<tr><td><bdi>${esc(a.client)}</bdi>${a.verified ? '' : ' <span class="muted">(not verified by svc)</span>'}</td><td>${esc(a.projects.join(', ') || '-')}</td><td>${when(a.createdAt)}</td><td>${when(a.expiresAt)}</td><td>${postForm(
        f,
        `/dashboard/account/apps/${encodeURIComponent(a.id)}/revoke`,
        '',
        `<button type="submit" class="small danger" aria-label="Revoke ${esc(a.client)}">Revoke</button>`,
        'inline',
      )}</td></tr>`,
  );
  const sessions = v.sessions.map(
    (s) =>
      `<tr><td>${esc(browserOf(s.agent))}${s.current ? ' <strong>(this browser)</strong>' : ''}</td><td>${when(s.createdAt)}</td><td>${
        s.current
          ? '<a href="/signout">Sign out</a>'
          : postForm(
              f,
              `/dashboard/account/sessions/${encodeURIComponent(s.handle)}/end`,
              '',
              '<button type="submit" class="small danger">End</button>',
              'inline',
            )
      }</td></tr>`,
  );
  const others = v.sessions.filter((s) => !s.current).length;
  const verified = v.emailVerified
    ? ' <span class="status-active">(confirmed)</span>'
    : ` <span class="status-rolling">(not confirmed yet)</span>${
        v.emailOn
          ? postForm(
              f,
              '/dashboard/account/verify-email',
              '',
              '<button type="submit" class="small secondary">Send the link again</button>',
              'inline',
            )
          : ''
      }`;
  return dashboardPage(
    f,
    'Account',
    `<p>Signed in as <strong>${esc(v.email)}</strong>${verified}</p><p><a href="/dashboard/account/password">Change password</a></p>
<h2>Personal keys</h2><p class="muted">Made by <code>svc login</code> on your devices; each reaches every project you can access.</p>
${table('Personal keys', ['Made by', 'Key', 'Created', 'Expires', 'Last used', 'Revoke'], keys, 'No personal keys.')}
<h2>Authorized apps</h2><p class="muted">MCP clients you allowed to act for you with OAuth, and the projects they reach. Revoking one stops its tokens at once; it must ask you again.</p>
${table('Authorized apps', ['App', 'Projects (level)', 'Authorized', 'Until', 'Revoke'], apps, 'No apps authorized.')}
<h2>Your access requests</h2>
${table(
  'Your access requests',
  ['Project', 'Asked for', 'Status', 'Granted', 'Asked', 'Decided'],
  v.requests.map(
    (r) =>
      `<tr><td>${esc(r.project)}</td><td>${esc(r.level)}</td><td>${esc(r.status)}</td><td>${esc(r.grantedLevel ?? '-')}</td><td>${when(r.createdAt)}</td><td>${when(r.decidedAt, 'not yet')}</td></tr>`,
  ),
  'You have asked for no access. When a tool is refused for your level, the MCP client can ask with svc_request_access.',
)}
<h2>Sessions</h2><p class="muted">Browsers signed in to your account.</p>
${table('Sessions', ['Browser', 'Signed in', 'End'], sessions, 'No sessions.')}${
      others > 1
        ? postForm(
            f,
            '/dashboard/account/sessions/end-others',
            '',
            '<button type="submit" class="secondary">End every other session</button>',
          )
        : ''
    }`,
  );
}

export function newProjectPage(f: Frame, v: { workspaces: string[]; error?: string; name?: string }): string {
  return dashboardPage(
    f,
    'New project',
    postForm(
      f,
      '/dashboard/projects',
      `<label for="project-name">Name</label><input id="project-name" name="name" type="text" maxlength="60" required value="${esc(v.name ?? '')}"${
        v.error ? ' aria-invalid="true" aria-describedby="project-error" autofocus' : ''
      }>${v.error ? `<p class="error" id="project-error">${esc(v.error)}</p>` : ''}
<label for="project-workspace">Workspace</label><select id="project-workspace" name="workspace">${v.workspaces.map((w) => `<option>${esc(w)}</option>`).join('')}</select>`,
      '<button type="submit">Create project</button>',
    ),
  );
}

export function changePasswordPage(f: Frame, v: { error?: { field: string; message: string } }): string {
  const err = (field: string) => (v.error?.field === field ? ` aria-invalid="true" aria-describedby="${field}-error" autofocus` : '');
  const line = (field: string) => (v.error?.field === field ? `<p class="error" id="${field}-error">${esc(v.error.message)}</p>` : '');
  return dashboardPage(
    f,
    'Change password',
    postForm(
      f,
      '/dashboard/account/password',
      `<label for="current">Current password</label><input id="current" name="current" type="password" autocomplete="current-password" required${err('current')}>${line('current')}
<label for="password">New password (at least 12 characters; a phrase of a few words works well)</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="12" maxlength="256" required${err('password')}>${line('password')}`,
      '<button type="submit">Change password</button>',
    ),
  );
}
