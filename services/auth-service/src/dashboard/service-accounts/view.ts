/**
 * Workspace > Service accounts (docs/dashboard.md): their grants and key prefix; create (the key
 * shown once), grant a project at a level, a new key, revoke.
 */
import { KEY_DEFAULTS, type ServiceAccountRow } from '@svc/management';
import { html, joinHtml, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { OVERLAP_CHOICES } from '../keys/view.ts';
import { confirmButton, emptyState, LEVELS, levelOptions, options, secretBox, secretGone, table, when } from '../parts.ts';

export interface ServiceAccountsPage {
  bots: ServiceAccountRow[];
  projects: string[];
  canManage: boolean;
  /** A new key; after a rotation with an overlap, when the key it replaces stops working. */
  newKey?: { bot: string; key: string; oldKeyUntil?: number | null };
  /** The reveal page opened again (reload, Back, Forward): the key was shown once and is gone. */
  gone?: true;
}

/** What issuing a service account a new key ends: its current key, after the overlap chosen. */
const rotateBotEnds = (b: ServiceAccountRow): SafeHtml =>
  html`Issue a new key for <strong>${b.name}</strong>? Its current key${b.keyPrefix && html` (<code>${b.keyPrefix}</code>)`} keeps working for the overlap you choose, so you can give machines the new one first; with no overlap, every machine using it is refused until it has the new one.`;

/** The rotation's confirmation: what it ends, and the overlap (docs/dashboard.md "Confirmation"). */
export function rotateBotPage(f: Frame, b: ServiceAccountRow, action: string, cancel: string): SafeHtml {
  return dashboardPage(
    f,
    'New service-account key',
    html`<p>${rotateBotEnds(b)}</p>
${postForm(
  f,
  action,
  html`<input type="hidden" name="confirm" value="yes"><label for="overlap">Overlap</label><select id="overlap" name="overlap">${options(OVERLAP_CHOICES, KEY_DEFAULTS.overlap)}</select>`,
  html`<button type="submit" class="danger">Issue a new key</button>`,
)}<p><a href="${cancel}">Cancel</a></p>`,
  );
}

/** What revoking a service account ends: its key and every project it was granted. */
export const revokeBotEnds = (b: ServiceAccountRow): SafeHtml =>
  html`Revoke <strong>${b.name}</strong>? Its key${b.keyPrefix && html` (<code>${b.keyPrefix}</code>)`} is refused within a second and it loses its access to ${Object.keys(b.grants).length} project(s). This cannot be undone.`;

function manageForms(f: Frame, v: ServiceAccountsPage, base: string, b: ServiceAccountRow): SafeHtml {
  const at = `${base}/${encodeURIComponent(b.id)}`;
  return html`${postForm(
    f,
    `${at}/grant`,
    html`<label for="grant-${b.id}" class="skip">Project for ${b.name}</label><select id="grant-${b.id}" name="project">${v.projects.map((p) => html`<option>${p}</option>`)}</select>
<label for="grant-level-${b.id}" class="skip">Level</label><select id="grant-level-${b.id}" name="level">${levelOptions(LEVELS, 'VIEWER')}</select>`,
    html`<button type="submit" class="small secondary">Grant</button>`,
    'inline',
  )} <a href="${at}/client-keys" class="small">OAuth keys</a> ${confirmButton(`${at}/rotate`, 'New key')} ${confirmButton(`${at}/revoke`, 'Revoke')}`;
}

export function serviceAccountsPage(f: Frame, v: ServiceAccountsPage): SafeHtml {
  const base = `/dashboard/workspaces/${encodeURIComponent(f.workspace)}/service-accounts`;
  const rows = v.bots.map((b) => {
    const grants = Object.entries(b.grants).map(([p, l]) => html`${p}: ${l}`);
    return [
      b.name,
      grants.length ? joinHtml(grants, html`<br>`) : html`<span class="muted">no projects</span>`,
      b.revoked
        ? html`<span class="muted">revoked</span>`
        : b.keyPrefix
          ? html`<code>${b.keyPrefix}</code>`
          : html`<span class="muted">no key</span>`,
      when(b.createdAt),
      v.canManage && !b.revoked && manageForms(f, v, base, b),
    ];
  });
  const create =
    v.canManage &&
    html`<h2>Create a service account</h2>${postForm(f, base, html`<label for="bot-name">Name</label><input id="bot-name" name="name" type="text" maxlength="80" required>`, html`<button type="submit">Create</button>`)}`;
  return dashboardPage(
    f,
    'Service accounts',
    html`${v.newKey && secretBox('new-key', v.newKey.key, `key of ${v.newKey.bot}`)}${
      v.newKey?.oldKeyUntil && html`<p class="muted">The key it replaces works until ${when(v.newKey.oldKeyUntil)}.</p>`
    }${
      v.gone && secretGone('key', 'If it was not copied, issue the service account a new key.')
    }<p class="muted">Keys for CI and other machines, owned by the workspace rather than a person. They call tools; they cannot manage keys or members. CI jobs can reach them with no stored secret: <a href="/dashboard/workspaces/${encodeURIComponent(f.workspace)}/workload-issuers">Workload identity</a>.</p>
${table('Service accounts', ['Name', 'Projects', 'Key', 'Created', 'Manage'], rows, emptyState('No service accounts yet.', html`<p>A service account is a machine identity of the workspace (a CI runner, a backend, an agent) with its own key, reaching the projects it is granted at the level chosen for each, and no person behind it: it stays when someone leaves.</p><p>${v.canManage ? 'Create one below, or run' : 'The workspace owner creates them, or runs'} <code>svc service-accounts create --name ci</code>.</p>`))}${create}`,
  );
}
