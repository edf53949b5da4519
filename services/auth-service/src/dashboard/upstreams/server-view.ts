/**
 * One upstream server's pages in Project > Upstream servers (docs/dashboard.md,
 * docs/upstream-servers.md "Policy rows"): its settings and its tools as a table, each with its
 * state, its level and its on/off switch; a changed tool's page showing what is offered now beside
 * what the server says now, with "Accept change"; what removing it ends. Pure functions of what
 * they show; the credential's value is never in them, only the header it is sent in.
 */
import { listedName, UPSTREAM_LIMITS, type ToolDescriptor, type UpstreamTool, type UpstreamView } from '@svc/upstreams';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { ago, APPROVAL_CHOICES, LEVELS, levelOptions, options, table } from '../parts.ts';
import { toolPath, upstreamPath, upstreamsPath, waiting } from './view.ts';

/** How a tool's state reads, and what it means for the project's clients. */
const STATES: Record<UpstreamTool['state'], { label: string; means: string }> = {
  listed: { label: 'listed', means: 'offered under its row' },
  new: { label: 'new', means: 'appeared after the server was added: off until you turn it on' },
  changed: { label: 'changed', means: 'offered as it was until you accept the change' },
  missing: { label: 'missing', means: 'the server no longer lists it: not offered' },
};

/** A description, cut to a line or two for the table (the tool's page has it whole). */
const SHORT = 140;
const short = (text: string) => (text.length > SHORT ? `${text.slice(0, SHORT - 1).trimEnd()}…` : text);

const listedOf = (t: UpstreamTool) => listedName(t.upstream, t.name) ?? t.name;

/** A tool's state as a badge, its meaning in the title and for screen readers. */
const stateBadge = (t: UpstreamTool): SafeHtml =>
  html`<span class="pill state-${t.state}" title="${STATES[t.state].means}">${STATES[t.state].label}</span>`;

/** One tool's row: its name and description, state (a changed one's way to its review), level form and on/off switch. */
function toolRow(f: Frame, v: UpstreamView, t: UpstreamTool) {
  const at = toolPath(f.project!.slug, v.upstream.name, t.name);
  const listed = listedOf(t);
  const on = t.policy.enabled;
  return [
    html`<a href="${at}"><code>${listed}</code></a><br><span class="muted">${short(t.descriptor.description)}</span>`,
    html`${stateBadge(t)}${
      t.state === 'changed'
        ? html`<br><a class="button small secondary review" href="${at}" aria-label="Review change to ${listed}">Review change</a>`
        : t.state !== 'listed' && html`<br><span class="muted">${STATES[t.state].means}</span>`
    }`,
    postForm(
      f,
      `${at}/level`,
      html`<label for="level-${t.name}" class="skip">Level of ${listed}</label><select id="level-${t.name}" name="level">${levelOptions(LEVELS, t.policy.level)}</select> `,
      html`<button type="submit" class="small secondary" aria-label="Save the level of ${listed}">Save</button>`,
      'inline',
    ),
    html`<span class="${on ? 'status-active' : 'muted'}">${on ? 'on' : 'off'}</span> ${postForm(
      f,
      `${at}/enabled`,
      html`<input type="hidden" name="enabled" value="${on ? 'off' : 'on'}">`,
      html`<button type="submit" class="small ${on ? 'secondary' : ''}" aria-label="${on ? 'Turn off' : 'Turn on'} ${listed}">${on ? 'Turn off' : 'Turn on'}</button>`,
      'inline',
    )}`,
  ];
}

/** The server's settings as a list of facts: where it is, how it is reached, when it was read. */
function facts(v: UpstreamView, now: number, issuer: string): SafeHtml {
  const u = v.upstream;
  return html`<dl class="facts">
<dt>URL</dt><dd><code>${u.url}</code></dd>
<dt>Timeout</dt><dd>${u.timeoutMs / 1000} s for one call</dd>
<dt>Credential</dt><dd>${u.credential ? html`sent in the <code>${u.credential.header}</code> header; its value is never shown` : 'none'}</dd>
<dt>Protocol</dt><dd>${u.protocolVersion ?? 'not known yet'}</dd>
<dt>Added</dt><dd>${ago(u.addedAt, now)} by ${u.addedBy}</dd>
<dt>Tools last read</dt><dd>${ago(u.refreshedAt, now)} <span class="muted">(again every ${UPSTREAM_LIMITS.refreshEveryMs / 60_000} minutes, and when the server says its tools changed)</span></dd>
</dl>${u.problem && html`<p class="flash error" role="alert">Problem: ${u.problem}</p>`}
<p class="muted">Each call reaches the server with a token svc signs for it alone: it checks the issuer <code>${issuer}</code> and the audience <code>${u.url}</code>, exactly.</p>`;
}

export function upstreamPage(f: Frame, v: UpstreamView, now: number, issuer: string): SafeHtml {
  const at = upstreamPath(f.project!.slug, v.upstream.name);
  const waits = waiting(v);
  // The removal's button opens its confirmation (a GET, as confirmButton's), at the refresh's size.
  const actions = html`<div class="actions">${postForm(f, `${at}/refresh`, '', html`<button type="submit" class="secondary">Read its tools again</button>`, 'inline')}
<form method="get" action="${at}/remove" class="inline"><button type="submit" class="danger">Remove</button></form></div>`;
  return dashboardPage(
    f,
    `Upstream server ${v.upstream.name}`,
    html`${facts(v, now, issuer)}
<h2>Tools</h2><p class="muted">Listed to this project's clients as <code>${v.upstream.name}__tool</code>, each to those whose level reaches the tool's. A tool that appears later starts off; a changed one is offered as it was until you accept the change${waits > 0 && html` (${waits} waiting)`}.</p>
${table(
  'Tools',
  ['Tool', 'State', 'Level', 'Offered'],
  v.tools.map((t) => toolRow(f, v, t)),
  html`<p class="muted">The server lists no tools, or none svc could keep (the problem above says why).</p>`,
)}
<p><a href="${upstreamsPath(f.project!.slug)}">All upstream servers</a></p>`,
    actions,
  );
}

/**
 * What one version of a tool says: description, annotations and input schema, under headings of
 * `level`; `marked` flags the parts that differ from the other version.
 */
function descriptorBlock(d: ToolDescriptor, marked: Set<string>, level: 3 | 4): SafeHtml {
  const changed = (part: string) => marked.has(part) && html` <span class="pill state-changed">changed</span>`;
  const heading = (text: string, part: string) => html`<h${level}>${text}${changed(part)}</h${level}>`;
  const notes = Object.entries(d.annotations ?? {});
  return html`${heading('Description', 'description')}<p class="described">${d.description || html`<span class="muted">none</span>`}</p>
${heading('Annotations', 'annotations')}${
    notes.length
      ? html`<ul class="annotations">${notes.map(([k, val]) => html`<li><code>${k}</code>: <code>${JSON.stringify(val)}</code></li>`)}</ul>`
      : html`<p class="muted">none (MCP's defaults: not read-only, destructive)</p>`
  }
${heading('Input schema', 'inputSchema')}<pre class="schema" tabindex="0">${JSON.stringify(d.inputSchema, null, 2)}</pre>`;
}

/** The parts of a tool's descriptor that differ between two versions. */
function differing(a: ToolDescriptor, b: ToolDescriptor): Set<string> {
  const parts = ['title', 'description', 'annotations', 'inputSchema', 'outputSchema'] as const;
  return new Set(parts.filter((p) => JSON.stringify(a[p] ?? null) !== JSON.stringify(b[p] ?? null)));
}

/** The tool's approval rule as a select and Save (setUpstreamTool, step-up as the level's). */
function approvalForm(f: Frame, t: UpstreamTool): SafeHtml {
  const listed = listedOf(t);
  return postForm(
    f,
    `${toolPath(f.project!.slug, t.upstream, t.name)}/approval`,
    html`<label for="approval-${t.name}" class="skip">Which calls of ${listed} wait for an approval</label><select id="approval-${t.name}" name="approval">${options(APPROVAL_CHOICES, t.policy.approval ?? 'none')}</select> `,
    html`<button type="submit" class="small secondary" aria-label="Save the approval rule of ${listed}">Save</button>`,
    'inline',
  );
}

/** What one call of the tool spends of its caller's tool budget, as a number field and Save (setUpstreamTool). */
function costForm(f: Frame, t: UpstreamTool): SafeHtml {
  const listed = listedOf(t);
  const { min, max } = UPSTREAM_LIMITS.toolCost;
  return postForm(
    f,
    `${toolPath(f.project!.slug, t.upstream, t.name)}/cost`,
    html`<label for="cost-${t.name}" class="skip">What one call of ${listed} spends of its caller's tool budget</label><input id="cost-${t.name}" name="cost" type="number" inputmode="numeric" min="${min}" max="${max}" step="1" required value="${t.policy.cost ?? 1}"> `,
    html`<button type="submit" class="small secondary" aria-label="Save the cost of ${listed}">Save</button>`,
    'inline',
  );
}

/** A tool's page: its row, what the server says of it, and for a changed tool the two versions side by side with "Accept change". */
export function toolPage(f: Frame, v: UpstreamView, t: UpstreamTool): SafeHtml {
  const back = upstreamPath(f.project!.slug, v.upstream.name);
  const p = t.policy;
  const row = html`<dl class="facts"><dt>State</dt><dd>${stateBadge(t)} ${STATES[t.state].means}</dd>
<dt>Level</dt><dd>${p.level}</dd><dt>Plan</dt><dd>${p.plan} and above</dd><dt>Surfaces</dt><dd>${p.surfaces.join(', ') || 'none'}</dd>
<dt>Agents</dt><dd>${p.agents ? 'may call it' : 'may not call it'}</dd><dt>Counts as a query</dt><dd>${p.countsAsQuery ? 'yes' : 'no'}</dd>
<dt>Offered</dt><dd>${p.enabled ? 'on' : 'off'}</dd>
<dt>Cost per call</dt><dd>${costForm(f, t)}</dd>
<dt>Approval</dt><dd>${approvalForm(f, t)}</dd></dl>
<p class="muted">Held calls wait on the project's Approvals page. Change its level and switch it on or off on <a href="${back}">the server's page</a>; plan, surfaces, agents and counting through the API (<code>PATCH …/upstreams/${v.upstream.name}/tools/${t.name}</code>).</p>`;
  const body =
    t.state === 'changed' && t.pending
      ? html`<h2>The server changed this tool</h2><p>Clients are offered it as it was until you accept the change; accepting offers the new version under the same row (level ${p.level}). Annotations are the server's claims: a tool that now says it only reads may not.</p>
<div class="compare"><section aria-labelledby="old-version"><h3 id="old-version">Offered now</h3>${descriptorBlock(t.descriptor, differing(t.descriptor, t.pending), 4)}</section>
<section aria-labelledby="new-version"><h3 id="new-version">What the server says now</h3>${descriptorBlock(t.pending, differing(t.descriptor, t.pending), 4)}</section></div>
${postForm(f, `${toolPath(f.project!.slug, v.upstream.name, t.name)}/accept`, '', html`<button type="submit">Accept change</button>`)}`
      : html`<h2>What the server says of it</h2>${descriptorBlock(t.descriptor, new Set(), 3)}`;
  return dashboardPage(f, `Tool ${listedOf(t)}`, html`${row}${body}<p><a href="${back}">Back to ${v.upstream.name}</a></p>`);
}

/** What removing a server ends: its tools for every client of the project, and their rows. */
export const removeEnds = (v: UpstreamView, slug: string): SafeHtml =>
  html`Remove <strong>${v.upstream.name}</strong> (<code>${new URL(v.upstream.url).origin}</code>) from ${slug}? Its ${v.tools.length} tools are no longer offered to the project's clients, and their levels and switches here are deleted: adding it again starts them from their defaults. The server itself is not touched.`;
