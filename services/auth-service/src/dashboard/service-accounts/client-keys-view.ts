/**
 * Workspace > Service accounts > OAuth client (docs/dashboard.md, docs/auth-service.md "Client
 * credentials"): a service account's client id, token endpoint and public keys; paste a public
 * JWK Set or a JWKS URL, remove them, and a one-line curl and SDK snippet to get a token.
 */
import { SERVICE_ACCOUNT_KEY_LIMITS } from '@svc/accounts/service-account-key-limits.ts';
import type { ServiceAccountClient } from '@svc/management';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { confirmButton } from '../parts.ts';

export interface ClientKeysPage {
  name: string;
  client: ServiceAccountClient;
}

/** What removing the keys ends: the client's authentication, at once (its tokens live on until they expire). */
export const removeClientKeysEnds = (name: string): SafeHtml =>
  html`Remove the OAuth client keys of <strong>${name}</strong>? Its client stops getting tokens at once; tokens already issued live until they expire (an hour at most) unless you revoke the service account.`;

function currentKeys(c: ServiceAccountClient): SafeHtml {
  if (c.jwksUri) return html`<p>Keys: fetched from <code>${c.jwksUri}</code>.</p>`;
  const keys = (c.jwks?.keys ?? []) as { kid?: string; kty?: string; alg?: string }[];
  if (keys.length === 0) return html`<p class="muted">No keys yet: this client cannot get tokens until you add its public keys.</p>`;
  return html`<p>Keys:</p><ul>${keys.map((k) => html`<li><code>${k.kid ?? ''}</code> ${k.kty ?? ''}${k.alg ? html` ${k.alg}` : ''}</li>`)}</ul>`;
}

/** The one-liners: a token with curl (an assertion signed with the private key) and the SDK v2 provider. */
function snippets(c: ServiceAccountClient): SafeHtml {
  const resource = c.resources[0] ?? 'MCP_ENDPOINT_URL';
  const curl = `curl -s ${c.tokenEndpoint} -d grant_type=client_credentials -d client_id=${c.clientId} -d client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer -d client_assertion="$ASSERTION" -d resource=${resource}`;
  const sdk = `new PrivateKeyJwtProvider({ clientId: '${c.clientId}', privateKey, algorithm: 'ES256' })`;
  return html`<h2>Get a token</h2><p>Sign a short-lived assertion (RFC 7523: <code>iss</code> and <code>sub</code> the client id, <code>aud</code> the issuer, a fresh <code>jti</code>) with the private key, then:</p>
<pre id="curl-snippet"><code>${curl}</code></pre><p>Or with the MCP TypeScript SDK (v2):</p><pre id="sdk-snippet"><code>${sdk}</code></pre>`;
}

export function clientKeysPage(f: Frame, v: ClientKeysPage, base: string): SafeHtml {
  const c = v.client;
  const at = `${base}/${encodeURIComponent(c.id)}/client-keys`;
  const form = postForm(
    f,
    at,
    html`<label for="jwks">Public JWK Set (JSON, at most ${SERVICE_ACCOUNT_KEY_LIMITS.maxKeys} keys)</label>
<textarea id="jwks" name="jwks" rows="8" maxlength="${SERVICE_ACCOUNT_KEY_LIMITS.maxJwksBytes}" placeholder='{"keys": [{"kty": "EC", "kid": "ci-1", ...}]}'></textarea>
<label for="jwks-uri">or a JWKS URL (https)</label><input id="jwks-uri" name="jwks_uri" type="url" maxlength="${SERVICE_ACCOUNT_KEY_LIMITS.maxJwksUriLength}">`,
    html`<button type="submit">Save keys</button>`,
  );
  const hasKeys = c.jwksUri !== null || (c.jwks?.keys.length ?? 0) > 0;
  return dashboardPage(
    f,
    `OAuth client of ${v.name}`,
    html`<p class="muted">A CI job or agent gets short-lived tokens with a private key it holds (client credentials, <code>private_key_jwt</code>): no static secret. Paste only the public keys.</p>
<dl><dt>Client id</dt><dd><code id="client-id">${c.clientId}</code></dd><dt>Token endpoint</dt><dd><code id="token-endpoint">${c.tokenEndpoint}</code></dd></dl>
${currentKeys(c)}${hasKeys ? confirmButton(`${at}/remove`, 'Remove keys') : ''}
<h2>${hasKeys ? 'Replace the keys' : 'Add keys'}</h2>${form}${snippets(c)}<p><a href="${base}">Back to service accounts</a></p>`,
  );
}
