/**
 * Workspace > SCIM provisioning (docs/dashboard.md, docs/auth-service.md "SCIM provisioning"): the
 * tenant URL to give the company's directory, its live tokens (a new one shown once), and what
 * the directory has provisioned.
 */
import type { ScimView } from '@svc/management';
import { SCIM_MAX_TOKENS } from '@svc/sso';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { confirmButton, copyable, emptyState, secretBox, secretGone, table, when } from '../parts.ts';

export const scimPath = (ws: string, rest = '') => `/dashboard/workspaces/${encodeURIComponent(ws)}/scim${rest}`;

export interface ScimPage {
  view: ScimView;
  /** A new token, once. */
  token?: string;
  /** The reveal page opened again: the token was shown once and is gone. */
  gone?: true;
}

export function scimPage(f: Frame, p: ScimPage): SafeHtml {
  const { view } = p;
  const rows = view.tokens.map((t) => [
    html`<code>${t.prefix}</code>`,
    when(t.createdAt),
    confirmButton(scimPath(f.workspace, `/tokens/${encodeURIComponent(t.id)}/revoke`), 'Revoke'),
  ]);
  return dashboardPage(
    f,
    'SCIM provisioning',
    html`${p.token && secretBox('new-key', p.token, 'SCIM token')}${p.gone && secretGone('SCIM token', 'If it was not copied, make another and revoke this one.')}
<p>Your company's directory (Entra ID, Okta) decides who is a member of this workspace and at what role: give it this tenant URL and a token. A person it deactivates or deletes loses every svc session, personal key and app of theirs within seconds.</p>
<p>Tenant URL: ${copyable('scim-endpoint', view.endpoint, 'the tenant URL')}</p>
<p class="hint">Roles follow the group mapping of <a href="/dashboard/workspaces/${encodeURIComponent(f.workspace)}/sso">Single sign-on</a>: the highest role a person's groups map to, else the default role. The directory holds ${view.users} people and ${view.groups} groups.</p>
${table('SCIM tokens', ['Token', 'Made', 'Revoke'], rows, emptyState('No SCIM token yet.', html`<p>Make one below and paste it as the secret token of your directory's provisioning; it is shown once.</p>`))}
${
  view.tokens.length < SCIM_MAX_TOKENS
    ? postForm(f, scimPath(f.workspace, '/tokens'), '', html`<button type="submit">Make a SCIM token</button>`)
    : html`<p class="muted">A workspace holds at most ${SCIM_MAX_TOKENS} tokens: revoke one to make another.</p>`
}`,
  );
}

/** What revoking ends: the directory's access to svc. */
export const revokeEnds = (prefix: string): SafeHtml =>
  html`Revoke the SCIM token <code>${prefix}</code>? Your directory's requests with it are refused from now on, so its changes stop reaching svc until it has another token.`;
