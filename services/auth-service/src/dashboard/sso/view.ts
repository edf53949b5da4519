/**
 * Workspace > Single sign-on (docs/dashboard.md, docs/auth-service.md "Single sign-on" and "SAML"):
 * the provider, OpenID Connect (the secret is never shown back) or a SAML IdP (with svc's service
 * provider to register at it), the claimed domains with the DNS record proving each, and the
 * policy with its group-to-role mapping.
 */
import { html, type SafeHtml } from '../../ui/html.ts';
import { csrfField } from '../../http/web-session.ts';
import { ROUTES } from '../../http/routes.ts';
import {
  SSO_MAX_DOMAINS,
  SSO_MAX_GROUP_MAPPINGS,
  certificateSummary,
  proofName,
  proofValue,
  type SamlServiceProvider,
  type SsoView,
} from '@svc/sso';
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

/** The SAML IdP form, with svc's SP to register at the IdP first (its metadata URL, entity id and ACS). */
function samlSection(f: Frame, view: SsoView, sp: SamlServiceProvider): SafeHtml {
  const idp = view.settings?.saml ?? null;
  const certs = (idp?.certificates ?? []).map(certificateSummary);
  return html`<h3>SAML 2.0</h3>
<p class="hint">At your identity provider, import svc's service provider metadata ${copyable('saml-metadata-url', sp.metadataUrl, 'the metadata URL')},
or enter its entity id ${copyable('saml-entity-id', sp.entityId, 'the entity id')} and its ACS URL (HTTP-POST) ${copyable('saml-acs-url', sp.acsUrl, 'the ACS URL')}.
Sign-ins start at svc; the assertion must be signed.</p>
${idp && html`<p>Now: <strong>${idp.entityId}</strong>, signing certificate ${certs.map((c) => html`<code>${c.sha256.slice(0, 23)}…</code> (valid to ${c.validTo.slice(0, 10)}) `)}</p>`}
<form method="post" action="${ssoPath(f.workspace, '/saml')}">${csrfField(f.csrf)}
<label for="metadata_xml">Identity provider metadata XML</label><textarea id="metadata_xml" name="metadata_xml" rows="4" aria-describedby="saml-fields-hint"></textarea>
<p class="hint" id="saml-fields-hint">Or, without metadata (a field given overrides the metadata's):</p>
<label for="entity_id">IdP entity id</label><input id="entity_id" name="entity_id" type="text" value="${idp?.entityId ?? ''}">
<label for="sso_url">IdP sign-on URL (HTTP-Redirect)</label><input id="sso_url" name="sso_url" type="text" value="${idp?.ssoUrl ?? ''}">
<label for="certificate">IdP signing certificate (PEM)</label><textarea id="certificate" name="certificate" rows="3"${idp ? html` placeholder="saved; leave empty to keep it"` : ''}></textarea>
<label for="email_attribute">Email attribute (empty: the NameID, format emailAddress)</label><input id="email_attribute" name="email_attribute" type="text" value="${idp?.emailAttribute ?? ''}">
<label for="groups_attribute">Groups attribute</label><input id="groups_attribute" name="groups_attribute" type="text" value="${idp?.groupsAttribute ?? 'groups'}">
<label class="check"><input type="checkbox" name="want_response_signed" value="1"${idp?.wantResponseSigned && html` checked`}> Require the whole Response to be signed too</label>
<button type="submit">Save SAML provider</button></form>`;
}

/**
 * `callback`: the redirect URI to register at an OpenID provider, the auth-service's own (its public
 * URL and /sso/callback); `sp`: svc's SAML service provider for the workspace.
 */
export function ssoPage(f: Frame, view: SsoView, svc: { callback: string; sp: SamlServiceProvider }, error?: string): SafeHtml {
  const s = view.settings;
  const oidc = s?.kind === 'oidc' ? s : null;
  const callback = svc.callback;
  // The same origin as the redirect URI (the auth-service's public URL), without parsing it: a page renders whatever it was given.
  const logoutUri = `${callback.replace(/\/sso\/callback$/, '')}${ROUTES.ssoBackchannelLogout.path.replace(':workspace', encodeURIComponent(f.workspace))}`;
  const mapping = (s?.groupRoles ?? []).map((g) => `${g.group}=${g.role}`).join('\n');
  const body = html`${error && html`<p class="flash error" role="alert">${error}</p>`}
<h2>Provider</h2><p class="hint">Your company's sign-in, by OpenID Connect or SAML 2.0${s && html`; now ${s.kind === 'saml' ? 'SAML 2.0' : 'OpenID Connect'}`}. Saving one replaces the other.</p>
<h3>OpenID Connect</h3><form method="post" action="${ssoPath(f.workspace, '/provider')}">${csrfField(f.csrf)}
<label for="issuer">Issuer URL</label><input id="issuer" name="issuer" type="text" value="${oidc?.issuer ?? ''}" required>
<label for="client_id">Client id</label><input id="client_id" name="client_id" type="text" value="${oidc?.clientId ?? ''}" required>
<label for="client_secret">Client secret</label><input id="client_secret" name="client_secret" type="password" autocomplete="off"${oidc ? html` placeholder="saved; leave empty to keep it"` : html` required`}>
<p class="hint" id="callback-hint">At your provider, register this redirect URI (OpenID Connect Core 1.0 §3.1.2.1 <code>redirect_uri</code>): ${copyable('sso-callback', callback, 'the redirect URI')}</p>
<p class="hint">And this back-channel logout URI (OpenID Connect Back-Channel Logout 1.0 <code>backchannel_logout_uri</code>), so signing out or removing a person there ends their svc sessions: ${copyable('sso-logout', logoutUri, 'the back-channel logout URI')}</p>
<button type="submit">Save provider</button></form>
${samlSection(f, view, svc.sp)}
${domains(f, view)}
<h2>Policy</h2><form method="post" action="${ssoPath(f.workspace, '/policy')}">${csrfField(f.csrf)}
<label for="default_role">Role on each project of the workspace when no group maps</label>${roleSelect('default_role', 'default_role', s?.defaultRole ?? 'VIEWER')}
<label for="group_roles">Group mapping, one <code>group=ROLE</code> a line (at most ${SSO_MAX_GROUP_MAPPINGS})</label><textarea id="group_roles" name="group_roles" rows="4">${mapping}</textarea>
<label class="check"><input type="checkbox" name="required" value="1"${s?.required && html` checked`}> Members must use SSO: password sign-in refused for addresses at proven domains</label>
<button type="submit">Save policy</button></form>`;
  return dashboardPage(f, 'Single sign-on', body);
}
