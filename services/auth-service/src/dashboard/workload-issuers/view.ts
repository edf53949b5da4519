/**
 * Workspace > Service accounts > Workload identity (docs/dashboard.md, docs/workload-identity.md):
 * the workload issuers whose tokens become tokens of the workspace's service accounts, with their
 * rules; add one (its rules one per line), remove one (confirmed first), and the exchange to run in CI.
 */
import { WORKLOAD_ISSUER_LIMITS } from '@svc/accounts/workload-issuer-limits.ts';
import { GITHUB_ACTIONS_ISSUER, WORKLOAD_ISSUER_KINDS } from '@svc/accounts/workload-rules.ts';
import type { WorkloadIssuer } from '@svc/accounts';
import { html, joinHtml, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { confirmButton, emptyState, table } from '../parts.ts';

export interface WorkloadIssuersPage {
  issuers: WorkloadIssuer[];
  /** The service accounts a rule may name: id and name. */
  accounts: { id: string; name: string }[];
  tokenEndpoint: string;
  audience: string;
}

/** What removing an issuer ends: new tokens for its workloads (those issued live out their minutes). */
export const removeIssuerEnds = (w: WorkloadIssuer): SafeHtml =>
  html`Stop trusting <strong>${w.issuer}</strong> (${w.kind})? Its workloads get no new token at once; tokens already issued live until they expire (15 minutes at most) unless you revoke the service account.`;

const ruleLine = (r: WorkloadIssuer['rules'][number]) =>
  `${r.serviceAccount}=${Object.entries(r.claims)
    .map(([k, p]) => `${k}:${p}`)
    .join(',')}`;

function addForm(f: Frame, base: string, v: WorkloadIssuersPage): SafeHtml {
  const example = v.accounts[0]?.id ?? 'bot_ID';
  return postForm(
    f,
    base,
    html`<label for="wl-kind">Kind</label><select id="wl-kind" name="kind">${WORKLOAD_ISSUER_KINDS.map((k) => html`<option>${k}</option>`)}</select>
<label for="wl-issuer">Issuer (github-actions: ${GITHUB_ACTIONS_ISSUER} unless given; spiffe: spiffe://your-trust-domain)</label><input id="wl-issuer" name="issuer" type="text" maxlength="${WORKLOAD_ISSUER_LIMITS.maxIssuerLength}">
<label for="wl-audience">Audience its tokens name (default ${v.audience})</label><input id="wl-audience" name="audience" type="text" maxlength="${WORKLOAD_ISSUER_LIMITS.maxIssuerLength}">
<label for="wl-jwks">Public JWK Set (JSON; a cluster's /openid/v1/jwks, a SPIFFE bundle's keys)</label><textarea id="wl-jwks" name="jwks" rows="4"></textarea>
<label for="wl-jwks-uri">or a JWKS URL (https; GitHub's unless given)</label><input id="wl-jwks-uri" name="jwks_uri" type="url">
<label for="wl-rules">Rules, one per line: SERVICE_ACCOUNT=claim:pattern,claim:pattern (at most ${WORKLOAD_ISSUER_LIMITS.maxRules})</label><textarea id="wl-rules" name="rules" rows="4" required placeholder="${example}=repository:acme/app,ref:refs/heads/main"></textarea>`,
    html`<button type="submit">Trust this issuer</button>`,
  );
}

function exchange(v: WorkloadIssuersPage): SafeHtml {
  const curl = `curl -s ${v.tokenEndpoint} -d grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer -d client_id=svc-workload -d resource=MCP_ENDPOINT_URL --data-urlencode assertion="$WORKLOAD_TOKEN"`;
  return html`<h2>In the workload</h2><p>Ask the platform for a token with the audience <code>${v.audience}</code> (GitHub Actions: <code>permissions: id-token: write</code>), then trade it:</p><pre id="exchange-snippet" class="schema" tabindex="0"><code>${curl}</code></pre>`;
}

export function workloadIssuersPage(f: Frame, v: WorkloadIssuersPage): SafeHtml {
  const base = `/dashboard/workspaces/${encodeURIComponent(f.workspace)}/workload-issuers`;
  const names = new Map(v.accounts.map((a) => [a.id, a.name]));
  const rows = v.issuers.map((w) => [
    html`<span class="copyable"><code>${w.issuer}</code></span><br><span class="muted">${w.kind}, audience ${w.audience ?? v.audience}</span><br>${confirmButton(`${base}/${encodeURIComponent(w.id)}/remove`, 'Remove')}`,
    joinHtml(
      w.rules.map(
        (r) =>
          html`<p class="described"><code>${ruleLine(r)}</code>${names.has(r.serviceAccount) ? html` (${names.get(r.serviceAccount)})` : ''}</p>`,
      ),
      html``,
    ),
  ]);
  return dashboardPage(
    f,
    'Workload identity',
    html`<p class="muted">CI jobs and workloads (GitHub Actions, a Kubernetes cluster, a SPIFFE trust domain) trade their own signed token for a 15-minute token of a service account: no stored secret. A rule's service account is all the token may do.</p>
${table('Workload issuers', ['Issuer', 'Rules'], rows, emptyState('No workload issuers yet.', html`<p>Trust one below, or run <code>svc workload-issuers add --kind github-actions --rule '${v.accounts[0]?.id ?? 'bot_ID'}=repository:OWNER/REPO'</code>.</p>`))}
<h2>Trust a workload issuer</h2>${addForm(f, base, v)}${exchange(v)}<p><a href="/dashboard/workspaces/${encodeURIComponent(f.workspace)}/service-accounts">Back to service accounts</a></p>`,
  );
}
