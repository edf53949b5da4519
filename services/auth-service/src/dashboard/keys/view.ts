/**
 * Project > API Keys (docs/dashboard.md): the list, the create form, and a key's own pages
 * (revoke, roll, limit). Pure functions of what they show; the `can*` fields say what the
 * management layer allows this person.
 */
import { KEY_DEFAULTS, type KeyRow, type NewKey } from '@svc/management';
import { MAX_KEY_SEARCH } from '@svc/management/contract';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { ago, cell, emptyState, levelOptions, options, secretBox, secretGone, table, when } from '../parts.ts';

/** Expiry choices offered when creating a key; the value is what the management layer parses. */
const EXPIRY_CHOICES = [
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
  { value: '90d', label: '90 days' },
  { value: '365d', label: '1 year' },
  { value: 'never', label: 'No expiry' },
] as const;
/** Overlap choices when rolling a key (or a service account's): how long the old key keeps working. */
export const OVERLAP_CHOICES = [
  { value: '0m', label: 'No overlap: the old key stops now' },
  { value: '1h', label: '1 hour' },
  { value: '24h', label: '24 hours' },
  { value: '7d', label: '7 days' },
] as const;

const keysPath = (f: Frame) => `/dashboard/projects/${encodeURIComponent(f.project!.slug)}/keys`;

export interface KeysPage {
  keys: KeyRow[];
  /** Levels this person may create keys at (an EDITOR cannot create ADMIN keys); empty: no creating. */
  creatableLevels: readonly string[];
  canRevoke: boolean;
  created?: NewKey;
  /** The reveal page opened again (reload, Back, Forward): the key was shown once and is gone. */
  gone?: boolean;
  /** The list's filter as asked for (empty status: every key but revoked ones). */
  filter?: { status: string; q: string };
  now: number;
}

/** The list's status filter: what each choice shows (docs/dashboard.md "API keys"). */
const STATUS_CHOICES = [
  { value: '', label: 'All but revoked' },
  { value: 'active', label: 'Active' },
  { value: 'expiring', label: 'Expiring' },
  { value: 'disabled', label: 'Disabled' },
  { value: 'expired', label: 'Expired' },
  { value: 'revoked', label: 'Revoked' },
  { value: 'all', label: 'All' },
] as const;

/**
 * The filter, out of the way as on Unkey's and Stripe's key lists: a GET form (a filtered list is a
 * link, Back returns to it) in a collapsed <details>, open and summarised while a filter is on.
 */
function filterForm(f: Frame, filter: { status: string; q: string }): SafeHtml {
  const on = Boolean(filter.status || filter.q);
  const statusLabel = STATUS_CHOICES.find((c) => c.value === filter.status)?.label ?? filter.status;
  const summary = on
    ? html`Filter: ${statusLabel}${filter.q && html`, matching “${filter.q}”`}`
    : html`Filter keys <span class="muted">(showing all but revoked)</span>`;
  return html`<details class="filters"${on && html` open`}><summary>${summary}</summary><form method="get" action="${keysPath(f)}" class="filter" role="search" aria-label="Filter keys"><div><label for="key-status">Status</label><select id="key-status" name="status">${options(STATUS_CHOICES, filter.status)}</select></div>
<div><label for="key-search">Name, prefix or note</label><input id="key-search" name="q" type="search" maxlength="${MAX_KEY_SEARCH}" value="${filter.q}"></div>
<div><button type="submit" class="small secondary">Filter</button>${on && html` <a href="${keysPath(f)}">Clear</a>`}</div></form></details>`;
}

/** A key's status as a person reads it: a rolled key says what replaced it rather than "expiring". */
function statusCell(k: KeyRow): SafeHtml | string {
  if (k.replacedBy && (k.status === 'active' || k.status === 'expiring'))
    return html`replaced by ${k.replacedBy.name || k.replacedBy.id}${k.replacedBy.prefix && html` (<code>${k.replacedBy.prefix}</code>)`}`;
  return k.status;
}

function createdBox(created: NewKey, now: number): SafeHtml {
  const replaced = created.replacedUntil !== undefined && html`; the key it replaces works until ${when(created.replacedUntil ?? now)}`;
  return html`${secretBox('new-key', created.key, 'key')}<p class="muted">${created.name}, ${created.level}, expires ${when(created.expiresAt)}${replaced}. Put it where your app reads it (an environment variable such as SVC_API_KEY), never in code.</p>`;
}

export interface NewKeyPage {
  creatableLevels: readonly string[];
  error?: { field: 'name' | 'level' | 'expires' | 'rateLimit'; message: string };
  values?: { name?: string; level?: string; expires?: string; rateLimit?: string };
}

/** Project > API Keys > Create key: its own page, as GitHub's "Generate new token" (the list's primary button opens it). */
export function newKeyPage(f: Frame, v: NewKeyPage): SafeHtml {
  const back = html`<p><a href="${keysPath(f)}">Back to the keys</a></p>`;
  if (!v.creatableLevels.length)
    return dashboardPage(
      f,
      'Create API key',
      html`<p>Your role on this project lets you see its keys, not create them. A project admin can.</p>${back}`,
    );
  const err = (field: string) => v.error?.field === field && html` aria-invalid="true" aria-describedby="${field}-error" autofocus`;
  const errLine = (field: string) => v.error?.field === field && html`<p class="error" id="${field}-error">${v.error.message}</p>`;
  return dashboardPage(
    f,
    'Create API key',
    html`<p class="muted">A key of project ${f.project!.slug}, for one app or job: name it after where it runs. It is shown once, right after.</p>${postForm(
      f,
      keysPath(f),
      html`<label for="key-name">Name</label><input id="key-name" name="name" type="text" maxlength="80" required value="${v.values?.name ?? ''}"${v.error ? err('name') : html` autofocus`}>${errLine('name')}
<label for="key-level">Access level</label><select id="key-level" name="level"${err('level')}>${levelOptions(v.creatableLevels, v.values?.level ?? KEY_DEFAULTS.level)}</select>${errLine('level')}
<label for="key-expires">Expires</label><select id="key-expires" name="expires"${err('expires')}>${options(EXPIRY_CHOICES, v.values?.expires ?? KEY_DEFAULTS.expires)}</select>${errLine('expires')}
${limitField(v.values?.rateLimit ?? '', v.error?.field === 'rateLimit' ? v.error.message : undefined)}`,
      html`<button type="submit">Create API key</button>`,
    )}${back}`,
  );
}

/** A key's row actions in one menu, as Unkey's and GitHub's lists have: a <details>, so it opens without a script. */
function actionsMenu(at: string, k: KeyRow): SafeHtml {
  const live = k.status === 'active' || k.status === 'expiring';
  const link = (action: string, label: string, danger = false) =>
    html`<li><a href="${`${at}/${action}`}"${danger && html` class="danger"`}>${label}</a></li>`;
  const items = [
    ...(live ? [link('roll', 'Roll'), link('limit', 'Rate limit'), link('disable', 'Disable')] : [link('enable', 'Enable')]),
    link('note', 'Note'),
    link('ips', 'IP allow-list'),
    link('revoke', 'Revoke', true),
  ];
  return html`<details class="menu"><summary aria-label="Actions for ${k.name}">Actions ▾</summary><ul>${items}</ul></details>`;
}

/** The list's empty state: what a key is for and how one is made (here, `svc keys create`, the API). */
function noKeys(f: Frame, v: KeysPage, filtered: boolean): SafeHtml {
  if (filtered)
    return emptyState('No keys match.', html`<p>Change the filter, or <a href="${keysPath(f)}">show every key but revoked ones</a>.</p>`);
  return emptyState(
    'No API keys yet.',
    html`<p>An API key lets an app or a job call this project's MCP tools without a person signing in: it goes in the app's <code>x-api-key</code> header (or <code>Authorization: Bearer</code>).</p>
<p>${v.creatableLevels.length ? html`<a href="${keysPath(f)}/new">Create the first key</a>, or run` : html`A project admin can create one, or run`} <code>svc keys create --project ${f.project!.slug} --name ci</code>. People and MCP clients that sign in with OAuth need no key.</p>`,
  );
}

export function keysPage(f: Frame, v: KeysPage): SafeHtml {
  const base = keysPath(f);
  const filter = v.filter ?? { status: '', q: '' };
  const rows = v.keys.map((k) => {
    const canAct = v.canRevoke && (k.status === 'active' || k.status === 'expiring' || k.status === 'disabled');
    return [
      html`${k.name}${k.note && html`<br><span class="muted">${k.note}</span>`}${
        k.allowedIps.length > 0 && html`<br><span class="muted">from ${k.allowedIps.join(', ')}</span>`
      }`,
      k.level,
      html`<code>${k.prefix}</code>`,
      ago(k.createdAt, v.now),
      ago(k.expiresAt, v.now),
      ago(k.lastUsedAt, v.now, 'not yet'),
      k.rateLimit === null ? 'plan' : `${k.rateLimit}/min`,
      cell(`status-${k.status}`, statusCell(k)),
      canAct && actionsMenu(`${base}/${encodeURIComponent(k.id)}`, k),
    ];
  });
  const filtered = Boolean(filter.status || filter.q);
  const create = v.creatableLevels.length > 0 && html`<a class="button" href="${base}/new">Create key</a>`;
  return dashboardPage(
    f,
    'API Keys',
    html`${v.created && createdBox(v.created, v.now)}${
      v.gone && secretGone('key', 'If it was not copied, roll the key from the list below or revoke it.')
    }<p class="muted">Keys of project ${f.project!.slug}. A key is shown once, when it is created; the list shows its first characters only. Times are relative; hover one for the exact time.</p>
${(v.keys.length > 0 || filtered) && filterForm(f, filter)}${table('API keys', ['Name', 'Level', 'Key', 'Created', 'Expires', 'Last used', 'Limit', 'Status', 'Actions'], rows, noKeys(f, v, filtered))}`,
    create || undefined,
  );
}

/** The optional per-key limit field (docs/management.md "Per-key limits"), its hint and any error tied to it. */
function limitField(value: string, error?: string): SafeHtml {
  const described = error ? 'key-rate-limit-hint rateLimit-error' : 'key-rate-limit-hint';
  return html`<label for="key-rate-limit">Requests per minute (optional)</label><input id="key-rate-limit" name="rateLimit" type="number" inputmode="numeric" min="1" step="1" value="${value}" aria-describedby="${described}"${error && html` aria-invalid="true" autofocus`}>
<p class="muted hint" id="key-rate-limit-hint">Empty: the plan's limit. A lower number keeps one busy key (a CI job, say) from using the whole workspace's allowance.</p>${
    error && html`<p class="error" id="rateLimit-error">${error}</p>`
  }`;
}

export function keyLimitPage(f: Frame, key: KeyRow, error?: string, value?: string): SafeHtml {
  const action = `${keysPath(f)}/${encodeURIComponent(key.id)}/limit`;
  return dashboardPage(
    f,
    'Key rate limit',
    html`<p>Requests per minute for <strong>${key.name}</strong> (<code>${key.prefix}</code>). It applies within the workspace's plan limit; the key is refused with 429 once it reaches its own.</p>
${postForm(f, action, limitField(value ?? (key.rateLimit === null ? '' : String(key.rateLimit)), error), html`<button type="submit">Save limit</button>`)}
<p><a href="${keysPath(f)}">Cancel</a></p>`,
  );
}

export function revokeKeyPage(f: Frame, key: KeyRow): SafeHtml {
  const action = `${keysPath(f)}/${encodeURIComponent(key.id)}/revoke`;
  return dashboardPage(
    f,
    'Revoke API key',
    html`<p>Revoke <strong>${key.name}</strong> (<code>${key.prefix}</code>, ${key.level})? Every app using it is refused within a second. This cannot be undone.</p>
${postForm(f, action, '', html`<button type="submit" class="danger">Revoke key</button>`)}<p><a href="${keysPath(f)}">Cancel</a></p>`,
  );
}

export function rollKeyPage(f: Frame, key: KeyRow): SafeHtml {
  const action = `${keysPath(f)}/${encodeURIComponent(key.id)}/roll`;
  return dashboardPage(
    f,
    'Roll API key',
    html`<p>Roll <strong>${key.name}</strong> (<code>${key.prefix}</code>): a new key with the same name and level is created, and the old one keeps working for the overlap you choose, so you can deploy the new one first.</p>
${postForm(f, action, html`<label for="overlap">Overlap</label><select id="overlap" name="overlap">${options(OVERLAP_CHOICES, KEY_DEFAULTS.overlap)}</select>`, html`<button type="submit">Roll key</button>`)}
<p><a href="${keysPath(f)}">Cancel</a></p>`,
  );
}
