/**
 * A key's controls in Project > API Keys (docs/dashboard.md "API keys"): disable and enable (each
 * confirmed, saying what it does), its note, and its IP allow-list. Pure functions of what they show.
 */
import { MAX_ALLOWED_IPS, MAX_KEY_NOTE } from '@svc/accounts/key-controls.ts';
import type { KeyRow } from '@svc/management';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';

const keyPath = (f: Frame, key: KeyRow) => `/dashboard/projects/${encodeURIComponent(f.project!.slug)}/keys/${encodeURIComponent(key.id)}`;
const listPath = (f: Frame) => `/dashboard/projects/${encodeURIComponent(f.project!.slug)}/keys`;
const named = (key: KeyRow) => html`<strong>${key.name}</strong> (<code>${key.prefix}</code>, ${key.level})`;

/** Disabling's or enabling's one step: what it does, the button, a way back. */
export function keyStatusPage(f: Frame, key: KeyRow, disable: boolean): SafeHtml {
  const says = disable
    ? html`Disable ${named(key)}? Every app using it is refused within a second, with an answer saying the key is disabled, until you enable it again. Nothing else about the key changes.`
    : html`Enable ${named(key)} again? Apps using it are accepted within a second.`;
  return dashboardPage(
    f,
    disable ? 'Disable API key' : 'Enable API key',
    html`<p>${says}</p>
${postForm(f, `${keyPath(f, key)}/${disable ? 'disable' : 'enable'}`, html`<input type="hidden" name="confirm" value="yes">`, html`<button type="submit"${disable && html` class="danger"`}>${disable ? 'Disable key' : 'Enable key'}</button>`)}<p><a href="${listPath(f)}">Cancel</a></p>`,
  );
}

/** The note form: free text kept with the key, for its owners only. */
export function keyNotePage(f: Frame, key: KeyRow, error?: string, value?: string): SafeHtml {
  const described = error ? 'key-note-hint note-error' : 'key-note-hint';
  return dashboardPage(
    f,
    'Key note',
    html`<p>A note about ${named(key)}: what it is for, who holds it. Only the project's members see it.</p>
${postForm(
  f,
  `${keyPath(f, key)}/note`,
  html`<label for="key-note">Note</label><textarea id="key-note" name="note" rows="4" maxlength="${MAX_KEY_NOTE}" aria-describedby="${described}"${error && html` aria-invalid="true" autofocus`}>${value ?? key.note}</textarea>
<p class="muted hint" id="key-note-hint">At most ${MAX_KEY_NOTE} characters, kept as one paragraph. Empty removes the note.</p>${error && html`<p class="error" id="note-error">${error}</p>`}`,
  html`<button type="submit">Save note</button>`,
)}
<p><a href="${listPath(f)}">Cancel</a></p>`,
  );
}

/** The allow-list form: one address or CIDR block a line; empty accepts the key from anywhere. */
export function keyIpsPage(f: Frame, key: KeyRow, error?: string, value?: string): SafeHtml {
  const described = error ? 'key-ips-hint allowedIps-error' : 'key-ips-hint';
  return dashboardPage(
    f,
    'Key IP allow-list',
    html`<p>Addresses ${named(key)} may be used from. A request from any other address is refused with 403, within a second of saving.</p>
${postForm(
  f,
  `${keyPath(f, key)}/ips`,
  html`<label for="key-ips">Allowed addresses</label><textarea id="key-ips" name="allowedIps" rows="5" spellcheck="false" autocapitalize="off" aria-describedby="${described}"${error && html` aria-invalid="true" autofocus`}>${value ?? key.allowedIps.join('\n')}</textarea>
<p class="muted hint" id="key-ips-hint">One IPv4 or IPv6 address or CIDR block a line (such as 203.0.113.0/24 or 2001:db8::/32), at most ${MAX_ALLOWED_IPS}. Empty: any address.</p>${error && html`<p class="error" id="allowedIps-error">${error}</p>`}`,
  html`<button type="submit">Save allow-list</button>`,
)}
<p><a href="${listPath(f)}">Cancel</a></p>`,
  );
}
