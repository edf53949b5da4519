/**
 * Workspace > Single sign-on (docs/dashboard.md, docs/auth-service.md "Single sign-on"): the
 * provider (the secret is never shown back), the claimed domains with the DNS record proving each,
 * and the policy with its group-to-role mapping.
 */
import { html, type SafeHtml } from '../../ui/html.ts';
import { csrfField } from '../../http/web-session.ts';
import { ROUTES } from '../../http/routes.ts';
import { SSO_MAX_DOMAINS, SSO_MAX_GROUP_MAPPINGS, proofName, proofValue, type SsoView } from '@svc/sso';
import { dashboardPage, type Frame } from '../frame.ts';
import { copyable, when } from '../parts.ts';

const ROLES = ['NONE', 'VIEWER', 'EDITOR', 'ADMIN'] as const;
export const ssoPath = (workspace: string, rest = '') => `/dashboard/workspaces/${encodeURIComponent(workspace)}/sso${rest}`;

const roleSelect = (id: string, name: string, selected: string) =>
  html`<select id="${id}" name="${name}">${ROLES.map((r) => html`<option value="${r}"${r === selected && html` selected`}>${r}</option>`)}</select>`;

function domains(f: Frame, view: SsoView): SafeHtml {
  const rows = view.claims.map(
    (c) =>
      html`<li><strong>${c.domain}</strong>: ${
        c.verifiedAt === null
          ? html`waiting for proof. Publish a TXT record <code>${proofName(c.domain)}</code> with the value <code>${proofValue(c.token)}</code>, then
<form class="inline" method="post" action="${ssoPath(f.workspace, '/domains/verify')}">${csrfField(f.csrf)}<input type="hidden" name="domain" value="${c.domain}"><button type="submit" class="small">Verify ${c.domain}</button></form>`
          : html`proven ${when(c.verifiedAt)}`
      } <form class="inline" method="post" action="${ssoPath(f.workspace, '/domains/release')}">${csrfField(f.csrf)}<input type="hidden" name="domain" value="${c.domain}"><button type="submit" class="small secondary">Release</button></form></li>`,
  );
  return html`<h2>Domains</h2><p class="hint">Addresses at a proven domain sign in through your provider. Up to ${SSO_MAX_DOMAINS} domains; each belongs to one workspace.</p>
<ul>${rows}</ul><form method="post" action="${ssoPath(f.workspace, '/domains')}">${csrfField(f.csrf)}
<label for="domain">Claim a domain</label><input id="domain" name="domain" type="text" required><button type="submit">Claim</button></form>`;
}

/** `callback`: the redirect URI to register at the provider, the auth-service's own (its public URL and /sso/callback). */
export function ssoPage(f: Frame, view: SsoView, callback: string, error?: string): SafeHtml {
  const s = view.settings;
  const mapping = (s?.groupRoles ?? []).map((g) => `${g.group}=${g.role}`).join('\n');
  const body = html`${error && html`<p class="flash error" role="alert">${error}</p>`}
<h2>Provider</h2><form method="post" action="${ssoPath(f.workspace, '/provider')}">${csrfField(f.csrf)}
<label for="issuer">Issuer URL</label><input id="issuer" name="issuer" type="text" value="${s?.issuer ?? ''}" required>
<label for="client_id">Client id</label><input id="client_id" name="client_id" type="text" value="${s?.clientId ?? ''}" required>
<label for="client_secret">Client secret</label><input id="client_secret" name="client_secret" type="password" autocomplete="off"${s ? html` placeholder="saved; leave empty to keep it"` : html` required`}>
<p class="hint" id="callback-hint">At your provider, register this redirect URI (OpenID Connect Core 1.0 §3.1.2.1 <code>redirect_uri</code>): ${copyable('sso-callback', callback, 'the redirect URI')}</p>
<p class="hint">And this back-channel logout URI (OpenID Connect Back-Channel Logout 1.0 <code>backchannel_logout_uri</code>), so signing out or removing a person there ends their svc sessions: ${copyable('sso-logout', new URL(ROUTES.ssoBackchannelLogout.path.replace(':workspace', encodeURIComponent(f.workspace)), callback).href, 'the back-channel logout URI')}</p>
<button type="submit">Save provider</button></form>
${domains(f, view)}
<h2>Policy</h2><form method="post" action="${ssoPath(f.workspace, '/policy')}">${csrfField(f.csrf)}
<label for="default_role">Role on each project of the workspace when no group maps</label>${roleSelect('default_role', 'default_role', s?.defaultRole ?? 'VIEWER')}
<label for="group_roles">Group mapping, one <code>group=ROLE</code> a line (at most ${SSO_MAX_GROUP_MAPPINGS})</label><textarea id="group_roles" name="group_roles" rows="4">${mapping}</textarea>
<label class="check"><input type="checkbox" name="required" value="1"${s?.required && html` checked`}> Members must use SSO: password sign-in refused for addresses at proven domains</label>
<button type="submit">Save policy</button></form>`;
  return dashboardPage(f, 'Single sign-on', body);
}
