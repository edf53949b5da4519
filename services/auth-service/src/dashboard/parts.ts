/**
 * The pieces the dashboard's section views share (docs/dashboard.md): times, select options,
 * tables that read on a phone, and the one box that shows a secret.
 */
import { html, type HtmlValue, type SafeHtml } from '../ui/html.ts';
import { dashboardPage, postForm, type Frame } from './frame.ts';
import type { APPROVAL_RULES } from '@svc/policy';

export { LEVELS } from '@svc/management';

/** A time as `<time>` in UTC, or `none` when there is none. */
export const when = (ms: number | null, none = 'never'): SafeHtml =>
  ms === null
    ? html`${none}`
    : html`<time datetime="${new Date(ms).toISOString()}">${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC</time>`;

const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
/** Each unit, its length in seconds, and from how many seconds it is used (days up to 60 days: "in 30 days", not "next month"). */
const UNITS: [Intl.RelativeTimeFormatUnit, number, number][] = [
  ['year', 365 * 86_400, 330 * 86_400],
  ['month', 30 * 86_400, 60 * 86_400],
  ['day', 86_400, 22 * 3600],
  ['hour', 3600, 50 * 60],
  ['minute', 60, 0],
];

/** `ms` said relative to `now`: "just now", "5 minutes ago", "yesterday", "in 3 months". */
export function relative(ms: number, now: number): string {
  const s = Math.round((ms - now) / 1000);
  if (Math.abs(s) < 45) return 'just now';
  const [unit, size] = UNITS.find(([, , from]) => Math.abs(s) >= from) ?? ['minute', 60];
  return RELATIVE.format(Math.round(s / size), unit);
}

/**
 * A time relative to now, as Unkey, Stripe and GitHub show them, the exact UTC time in `datetime`
 * and on hover (`title`): HTML §4.5.14 the time element. `none` when there is no time.
 */
export const ago = (ms: number | null, now: number, none = 'never'): SafeHtml => {
  if (ms === null) return html`${none}`;
  const exact = new Date(ms).toISOString();
  return html`<time datetime="${exact}" title="${exact.slice(0, 16).replace('T', ' ')} UTC">${relative(ms, now)}</time>`;
};

/**
 * An empty list's place: what will be here, and how it gets here (a form below, a CLI command, a
 * tool), so a person never faces a bare "nothing" (docs/dashboard.md "Empty states").
 */
export const emptyState = (title: string, teach: SafeHtml): SafeHtml =>
  html`<div class="empty"><p class="empty-title">${title}</p>${teach}</div>`;

/** How long ago, briefly: "40 s", "12 min", "3 h", "5 days". */
export function age(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 90) return `${s} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 129_600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} days`;
}

export const options = (values: readonly { value: string; label: string }[], selected?: string): SafeHtml =>
  html`${values.map((o) => html`<option value="${o.value}"${o.value === selected && html` selected`}>${o.label}</option>`)}`;

export const levelOptions = (levels: readonly string[], selected?: string): SafeHtml =>
  options(
    levels.map((l) => ({ value: l, label: l })),
    selected,
  );

/** A table cell with a class (`num`, `status-active`); any other cell is its content alone. */
export interface ClassedCell {
  cls: string;
  body: HtmlValue;
}
export type Cell = HtmlValue | ClassedCell;

export const cell = (cls: string, body: HtmlValue): ClassedCell => ({ cls, body });

function isClassed(c: Cell): c is ClassedCell {
  return typeof c === 'object' && c !== null && !Array.isArray(c) && 'cls' in c;
}

/**
 * A table in a region that scrolls on its own; each cell names its column (data-label), which a
 * phone shows beside the value. A heading starting with `#` is a number column.
 */
export function table(caption: string, head: string[], rows: Cell[][], empty: string | SafeHtml): SafeHtml {
  if (rows.length === 0) return typeof empty === 'string' ? html`<p class="muted">${empty}</p>` : empty;
  const label = (i: number) => (head[i] ?? '').replace(/^#/, '');
  const td = (c: Cell, i: number) =>
    isClassed(c) ? html`<td data-label="${label(i)}" class="${c.cls}">${c.body}</td>` : html`<td data-label="${label(i)}">${c}</td>`;
  const tr = (r: Cell[]) => html`<tr>${r.map(td)}</tr>`;
  return html`<div class="table" role="region" aria-label="${caption}" tabindex="0"><table><caption class="skip">${caption}</caption>
<thead><tr>${head.map((h) => html`<th scope="col"${h.startsWith('#') && html` class="num"`}>${h.replace(/^#/, '')}</th>`)}</tr></thead>
<tbody>${rows.map((r, i) => html`${i > 0 && html`\n`}${tr(r)}`)}</tbody></table></div>`;
}

/**
 * The one place a secret is shown: once, with a copy button and the warning. Focus moves to the box
 * (autofocus on it, tabindex -1) so a keyboard or screen-reader user lands on the key; it is not a
 * live region, which would read the secret aloud.
 */
export function secretBox(id: string, value: string, what: string): SafeHtml {
  return html`<div class="secret" id="${id}-box" tabindex="-1" autofocus aria-labelledby="${id}-title"><p id="${id}-title"><strong>Copy this ${what} now: you will not see it again.</strong></p>
<code id="${id}">${value}</code><button type="button" class="small" data-copy="${id}" hidden>Copy</button></div>`;
}

/** Text with a Copy button (the frame's script; without it, the text is there to select). */
export function copyable(id: string, value: string, what: string): SafeHtml {
  return html`<span class="copyable"><code id="${id}">${value}</code> <button type="button" class="small secondary" data-copy="${id}" aria-label="Copy ${what}" hidden>Copy</button></span>`;
}

/** Where the box was, when the reveal page is opened again (reload, Back, Forward): the key is gone. */
export function secretGone(what: string, remedy: string): SafeHtml {
  return html`<div class="secret gone" id="new-key-gone" tabindex="-1" autofocus><p><strong>This ${what} was shown once and is gone.</strong> No new one was made. ${remedy}</p></div>`;
}

/** A button that opens a destructive action's confirmation page (a GET: it changes nothing, and Back returns to it). */
export const confirmButton = (action: string, label: string): SafeHtml =>
  html`<form method="get" action="${action}" class="inline"><button type="submit" class="small danger">${label}</button></form>`;

/**
 * The second step of a destructive form (docs/dashboard.md "Confirmation"): what it ends, then the
 * same form again with `confirm=yes`, which alone acts (kit.ts `confirmed`), and a way back.
 */
export function confirmPage(f: Frame, c: { title: string; ends: SafeHtml; action: string; button: string; cancel: string }): SafeHtml {
  return dashboardPage(
    f,
    c.title,
    html`<p>${c.ends}</p>
${postForm(f, c.action, html`<input type="hidden" name="confirm" value="yes">`, html`<button type="submit" class="danger">${c.button}</button>`)}<p><a href="${c.cancel}">Cancel</a></p>`,
  );
}

/** What each approval rule holds, as the select offers it (docs/approvals.md "The rule"). */
export const APPROVAL_CHOICES = [
  { value: 'none', label: 'None: calls run at once' },
  { value: 'all', label: "Every call waits for an admin's approval" },
  { value: 'agents', label: 'Calls through third-party OAuth apps wait' },
  { value: 'below:VIEWER', label: 'Calls by callers below VIEWER wait' },
  { value: 'below:EDITOR', label: 'Calls by callers below EDITOR wait' },
  { value: 'below:ADMIN', label: 'Calls by callers below ADMIN wait' },
] as const satisfies readonly { value: (typeof APPROVAL_RULES)[number]; label: string }[];
