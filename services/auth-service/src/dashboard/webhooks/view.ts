/**
 * Workspace > Webhooks (docs/dashboard.md, docs/webhooks.md): the endpoints with their state and
 * last delivery, add one (its signing secret shown once), and one endpoint's page: change it, send
 * a test event, rotate its secret, delete it (both confirmed first), its delivery log.
 */
import type { WebhookRow } from '@svc/management';
import type { DeliveryAttempt } from '@svc/webhooks';
import { SUBSCRIBABLE_EVENT_TYPES } from '@svc/webhooks/events.ts';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { cell, confirmButton, emptyState, secretBox, secretGone, table, when } from '../parts.ts';

/** The events an endpoint may choose (a test event goes to every endpoint). */

export const webhooksPath = (ws: string) => `/dashboard/workspaces/${encodeURIComponent(ws)}/webhooks`;
export const webhookPath = (ws: string, id: string) => `${webhooksPath(ws)}/${encodeURIComponent(id)}`;

/** What a form showed, to show it again with the refusal at its field. */
export interface Sent {
  url: string;
  events: string[];
  description: string;
  enabled?: boolean;
  error?: { message: string; field?: string | undefined };
}

export interface WebhooksPage {
  rows: (WebhookRow & { last: DeliveryAttempt | null })[];
  /** A new or rotated secret, once; after a rotation, until when the old one still signs. */
  secret?: { url: string; secret: string; previousUntil?: number };
  /** The reveal page opened again: the secret was shown once and is gone. */
  gone?: true;
  sent?: Sent;
}

const stateOf = (w: WebhookRow): SafeHtml =>
  !w.enabled
    ? html`<span class="muted">disabled</span>`
    : w.state.failing
      ? html`<span class="status-revoked">failing</span>`
      : w.state.attempts > 0
        ? html`<span class="status-rolling">retrying (${w.state.attempts} failed)</span>`
        : html`<span class="status-active">ok</span>`;

const outcome = (d: DeliveryAttempt): SafeHtml =>
  d.status === null ? html`no answer` : html`<span class="${d.status < 300 ? 'status-active' : 'status-revoked'}">${d.status}</span>`;

/** The fields of a create or edit form, with what was sent and the refusal at its field. */
function fields(s: Sent, prefix: string): SafeHtml {
  const err = s.error;
  const at = (name: string) => (err && err.field === name ? html` aria-invalid="true" aria-describedby="${prefix}-error"` : '');
  const checked = new Set(s.events);
  const boxes = SUBSCRIBABLE_EVENT_TYPES.map(
    (t) =>
      html`<label class="check"><input type="checkbox" name="events" value="${t}"${checked.has(t) && html` checked`}> <code>${t}</code></label>`,
  );
  return html`${err && html`<p class="error" role="alert" id="${prefix}-error">${err.message}</p>`}
<label for="${prefix}-url">Endpoint URL</label><input id="${prefix}-url" name="url" type="text" inputmode="url" required value="${s.url}"${at('url')}>
<fieldset${at('events')}><legend>Events</legend>${boxes}</fieldset>
<label for="${prefix}-description">Description (optional)</label><input id="${prefix}-description" name="description" type="text" value="${s.description}"${at('description')}>`;
}

export function webhooksPage(f: Frame, v: WebhooksPage): SafeHtml {
  const base = webhooksPath(f.workspace);
  const rows = v.rows.map((w) => [
    html`<a href="${webhookPath(f.workspace, w.id)}">${w.url}</a>${w.description && html`<br><span class="muted">${w.description}</span>`}`,
    html`${w.events.join(', ')}`,
    stateOf(w),
    w.last ? html`${when(w.last.at)} · ${outcome(w.last)}` : html`<span class="muted">none yet</span>`,
  ]);
  const sent = v.sent ?? { url: '', events: [], description: '' };
  return dashboardPage(
    f,
    'Webhooks',
    html`${v.secret && secretBox('new-key', v.secret.secret, `signing secret of ${v.secret.url}`)}${
      v.secret?.previousUntil && html`<p class="muted">The previous secret also signs until ${when(v.secret.previousUntil)}.</p>`
    }${v.gone && secretGone('secret', 'If it was not copied, rotate the endpoint’s secret.')}
<p class="muted">Events of this workspace sent as signed POSTs (Standard Webhooks) to your own service.</p>
${table('Webhook endpoints', ['URL', 'Events', 'State', 'Last delivery'], rows, emptyState('No webhook endpoints yet.', html`<p>An endpoint is a URL of your own service that receives this workspace's events (a key created or revoked, a request decided, a member added) as signed POSTs, so you need not poll. Add one below; its signing secret is shown once.</p>`))}
<h2>Add an endpoint</h2>${postForm(f, base, fields(sent, 'new'), html`<button type="submit">Add endpoint</button>`)}`,
  );
}

export interface WebhookPage {
  endpoint: WebhookRow;
  deliveries: DeliveryAttempt[];
  sent?: Sent;
}

export function webhookPage(f: Frame, v: WebhookPage): SafeHtml {
  const w = v.endpoint;
  const at = webhookPath(f.workspace, w.id);
  const sent = v.sent ?? { url: w.url, events: w.events, description: w.description, enabled: w.enabled };
  const enabled = html`<label class="check"><input type="checkbox" name="enabled" value="on"${sent.enabled && html` checked`}> Enabled${
    w.state.failing && html` (checking it again resumes at the event it stopped on)`
  }</label>`;
  const log = v.deliveries.map((d) => [
    when(d.at),
    html`<code>${d.type}</code>`,
    cell('num', d.attempt),
    outcome(d),
    cell('num', `${d.durationMs} ms`),
    d.error ?? '',
  ]);
  return dashboardPage(
    f,
    `Webhook ${w.url}`,
    html`<p>State: ${stateOf(w)}${w.state.lastError && html` · last error: ${w.state.lastError}`}</p>
${postForm(f, `${at}/test`, '', html`<button type="submit" class="secondary">Send a test event</button>`, 'inline')} ${confirmButton(`${at}/rotate`, 'Rotate secret')} ${confirmButton(`${at}/delete`, 'Delete')}
<h2>Delivery log</h2>
${table('Delivery log', ['Time', 'Event', '#Attempt', 'Status', '#Duration', 'Error'], log, emptyState('No deliveries yet.', html`<p>Each event sent to this endpoint, and each retry, is listed here with its status and time. “Send a test event” above sends one now.</p>`))}
<h2>Change</h2>${postForm(f, at, html`${fields(sent, 'edit')}${enabled}`, html`<button type="submit">Save</button>`)}
<p><a href="${webhooksPath(f.workspace)}">All webhooks</a></p>`,
  );
}

/** What rotating ends: after the overlap, the old secret. */
export const rotateEnds = (w: WebhookRow): SafeHtml =>
  html`Make a new signing secret for <strong>${w.url}</strong>? It is shown once; the current one keeps signing beside it for 24 hours, so your receiver can switch first.`;

/** What deleting ends: every delivery to it, and its log. */
export const removeEnds = (w: WebhookRow): SafeHtml =>
  html`Delete the endpoint <strong>${w.url}</strong>? Nothing more is sent to it and its delivery log is removed. This cannot be undone.`;
