/**
 * Workspace > Service accounts (docs/dashboard.md): their grants and key prefix; create (the key
 * shown once), grant a project at a level, a new key, revoke.
 */
import type { BotRow } from '@svc/management';
import { html, joinHtml, type SafeHtml } from '../../pages/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { confirmButton, LEVELS, levelOptions, secretBox, secretGone, table, when } from '../parts.ts';

export interface ServiceAccountsPage {
  bots: BotRow[];
  projects: string[];
  canManage: boolean;
  newKey?: { bot: string; key: string };
  /** The reveal page opened again (reload, Back, Forward): the key was shown once and is gone. */
  gone?: true;
}

/** What issuing a service account a new key ends: its current key, at once (no overlap). */
export const rotateBotEnds = (b: BotRow): SafeHtml =>
  html`Issue a new key for <strong>${b.name}</strong>? Its current key${b.keyPrefix && html` (<code>${b.keyPrefix}</code>)`} stops working at once, with no overlap: every machine using it is refused until it has the new one.`;

/** What revoking a service account ends: its key and every project it was granted. */
export const revokeBotEnds = (b: BotRow): SafeHtml =>
  html`Revoke <strong>${b.name}</strong>? Its key${b.keyPrefix && html` (<code>${b.keyPrefix}</code>)`} is refused within a second and it loses its access to ${Object.keys(b.grants).length} project(s). This cannot be undone.`;

function manageForms(f: Frame, v: ServiceAccountsPage, base: string, b: BotRow): SafeHtml {
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
      b.keyPrefix ? html`<code>${b.keyPrefix}</code>` : html`<span class="muted">revoked</span>`,
      when(b.createdAt),
      v.canManage && manageForms(f, v, base, b),
    ];
  });
  const create =
    v.canManage &&
    html`<h2>Create a service account</h2>${postForm(f, base, html`<label for="bot-name">Name</label><input id="bot-name" name="name" type="text" maxlength="80" required>`, html`<button type="submit">Create</button>`)}`;
  return dashboardPage(
    f,
    'Service accounts',
    html`${v.newKey && secretBox('new-key', v.newKey.key, `key of ${v.newKey.bot}`)}${
      v.gone && secretGone('key', 'If it was not copied, issue the service account a new key.')
    }<p class="muted">Keys for CI and other machines, owned by the workspace rather than a person. They call tools; they cannot manage keys or members.</p>
${table('Service accounts', ['Name', 'Projects', 'Key', 'Created', 'Manage'], rows, 'No service accounts yet.')}${create}`,
  );
}
