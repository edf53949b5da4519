/**
 * Workspace > Usage (docs/dashboard.md): meters against the plan, the last days' requests as a
 * column chart with its table (per key and per tool each day), then this month per tool and per
 * key, each an SVG bar chart followed by a table of the same numbers.
 */
import type { Usage } from '@svc/management';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, type Frame } from '../frame.ts';
import { cell, emptyState, table } from '../parts.ts';

/** A horizontal bar chart as SVG, with its numbers in a table beside it (role img + title). */
function barChart(title: string, rows: { label: string; value: number }[]): SafeHtml | '' {
  if (rows.length === 0) return '';
  const max = Math.max(...rows.map((r) => r.value), 1);
  const h = 22;
  const bars = rows.map(
    (r, i) =>
      html`<text x="0" y="${i * h + 15}" font-size="12">${r.label.slice(0, 24)}</text><rect x="170" y="${i * h + 4}" width="${Math.max(1, Math.round((r.value / max) * 300))}" height="14" fill="#1f5fbf"/><text x="${176 + Math.round((r.value / max) * 300)}" y="${i * h + 15}" font-size="12">${r.value}</text>`,
  );
  const id = `chart-${title.replace(/\W+/g, '-')}`;
  return html`<svg role="img" aria-labelledby="${id}" viewBox="0 0 520 ${rows.length * h + 4}" width="100%" style="max-width:520px"><title id="${id}">${title}: ${rows.map((r) => `${r.label} ${r.value}`).join(', ')}</title>${bars}</svg>`;
}

function meter(label: string, used: number, of: number | null): SafeHtml {
  const pct = (n: number) => Math.min(100, Math.round((used / Math.max(n, 1)) * 100));
  return html`<p><strong>${label}</strong>: ${used.toLocaleString('en')} ${of === null ? '(no quota)' : `of ${of.toLocaleString('en')} (${pct(of)} %)`}</p>${
    of !== null &&
    html`<svg role="img" aria-label="${label}: ${pct(of)} percent used" viewBox="0 0 300 12" width="300" height="12"><rect width="300" height="12" fill="#dfe2e6"/><rect width="${pct(of) * 3}" height="12" fill="${pct(of) >= 90 ? '#a4000f' : '#1f5fbf'}"/></svg>`
  }`;
}

/** A day's requests as a column chart: its summary in the title; every number is in the table that follows. */
function dailyChart(d: Usage['daily']): SafeHtml {
  const max = Math.max(...d.requests, 1);
  const w = 18;
  const h = 120;
  const total = d.requests.reduce((a, b) => a + b, 0);
  const busiest = d.requests.indexOf(Math.max(...d.requests));
  const summary =
    total === 0
      ? `Requests per day, last ${d.days.length} days: none`
      : `Requests per day, last ${d.days.length} days: ${total} in all, most on ${d.days[busiest]} (${d.requests[busiest]})`;
  const bars = d.requests.map((n, i) => {
    const bh = n === 0 ? 0 : Math.max(2, Math.round((n / max) * h));
    return html`<rect x="${i * w + 2}" y="${h - bh + 4}" width="${w - 4}" height="${bh}" fill="#1f5fbf"/>`;
  });
  return html`<svg role="img" aria-labelledby="chart-daily" viewBox="0 0 ${d.days.length * w + 4} ${h + 24}" width="100%" style="max-width:600px"><title id="chart-daily">${summary}</title><line x1="0" y1="${h + 4}" x2="${d.days.length * w + 4}" y2="${h + 4}" stroke="#6b7079"/>${bars}<text x="2" y="${h + 20}" font-size="11">${d.days[0] ?? ''}</text><text x="${d.days.length * w + 2}" y="${h + 20}" font-size="11" text-anchor="end">${d.days.at(-1) ?? ''}</text></svg>`;
}

/** The days' table: only the days with requests, newest first, each one's requests in all, per key and per tool (those with any); then the total. */
function dailyTable(d: Usage['daily']): SafeHtml {
  const listed = (rows: { label: string; counts: number[] }[], i: number) =>
    rows
      .filter((r) => (r.counts[i] ?? 0) > 0)
      .map((r) => `${r.label} ${r.counts[i]}`)
      .join('; ') || '-';
  const keys = d.perKey.map((k) => ({ label: k.prefix ? `${k.name} (${k.prefix})` : k.name, counts: k.counts }));
  const tools = d.perTool.map((t) => ({ label: t.tool, counts: t.counts }));
  const rows = d.days
    .map((day, i) => [html`<time datetime="${day}">${day}</time>`, cell('num', d.requests[i] ?? 0), listed(keys, i), listed(tools, i)])
    .filter((_, i) => (d.requests[i] ?? 0) > 0)
    .reverse();
  const total = d.requests.reduce((a, b) => a + b, 0);
  const quiet = d.days.length - rows.length;
  return html`${table('Requests per day', ['Day (UTC)', '#Requests', 'By key or person', 'By tool'], rows, '')}<p class="muted">${total.toLocaleString('en')} requests in the last ${d.days.length} days, on ${rows.length} ${rows.length === 1 ? 'day' : 'days'}${quiet > 0 && `; the ${quiet} days without any are left out of the table`}.</p>`;
}

/** What the two counters count (docs/contract.md "Rate limits"), said once at the top. */
const EXPLAINED = html`<p class="muted"><strong>Requests</strong> are every authenticated call to the gateway (a tool call, a tool list, an initialize), counted against the plan's limit per minute. <strong>Queries</strong> are the tool calls among them (except <code>svc_help</code> and <code>svc_request_access</code>), counted against the month's quota. Refused calls count as neither.</p>`;

/** No traffic yet: what will be counted here and how the first request is made. */
function noTraffic(f: Frame, u: Usage): SafeHtml {
  const project = f.project && f.project.workspace === f.workspace ? f.project.slug : 'PROJECT';
  return emptyState(
    `No requests in the last ${u.daily.days.length} days.`,
    html`<p>Once an app or an MCP client calls a tool of one of this workspace's projects, its requests show here within a second: per day, per key or person and per tool. Point a client at <code>/mcp/${project}</code> on the gateway, with an API key (Project › API Keys) or signing in with OAuth. <code>svc usage</code> shows the same numbers.</p>`,
  );
}

export function usagePage(f: Frame, u: Usage): SafeHtml {
  const idle = u.daily.requests.every((n) => n === 0) && u.perKey.length === 0 && u.perTool.length === 0;
  const perTool = table(
    'Calls by tool',
    ['Tool', '#Calls'],
    u.perTool.map((t) => [t.tool, cell('num', t.count)]),
    'No tool calls this month.',
  );
  const perKey = table(
    'Requests by key',
    ['Key or person', 'Prefix', 'Project', '#Requests'],
    u.perKey.map((k) => [k.name, k.prefix ? html`<code>${k.prefix}</code>` : 'OAuth', k.project || '-', cell('num', k.count)]),
    'No requests this month.',
  );
  const history = html`<h2>Per day, last ${u.daily.days.length} days</h2>${dailyChart(u.daily)}
${dailyTable(u.daily)}
<h2>By tool, this month</h2>${barChart(
    'Calls by tool this month',
    u.perTool.map((t) => ({ label: t.tool, value: t.count })),
  )}
${perTool}
<h2>By key, this month</h2>${barChart(
    'Requests by key this month',
    u.perKey.map((k) => ({ label: k.name, value: k.count })),
  )}
${perKey}`;
  return dashboardPage(
    f,
    'Usage',
    html`${EXPLAINED}${meter('Requests this minute', u.minute.used, u.minute.limit)}${meter('Queries this month', u.month.used, u.month.quota)}
${idle ? noTraffic(f, u) : history}`,
  );
}
