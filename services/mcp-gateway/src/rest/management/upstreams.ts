/** The routes of a project's upstream MCP servers (docs/upstream-servers.md). */
import type { UpstreamTool, UpstreamView } from '@svc/upstreams';
import { listedName } from '@svc/upstreams';
import { handle, iso, type ManagementRoute } from './handle.ts';

const descriptor = (d: UpstreamTool['descriptor']) => ({
  ...(d.title === undefined ? {} : { title: d.title }),
  description: d.description,
  input_schema: d.inputSchema,
  ...(d.annotations === undefined ? {} : { annotations: d.annotations }),
});

const tool = (t: UpstreamTool) => ({
  name: t.name,
  listed_name: listedName(t.upstream, t.name) ?? t.name,
  state: t.state,
  descriptor: descriptor(t.descriptor),
  pending: t.pending ? descriptor(t.pending) : null,
  level: t.policy.level,
  plan: t.policy.plan,
  surfaces: t.policy.surfaces,
  agents: t.policy.agents,
  counts_as_query: t.policy.countsAsQuery,
  enabled: t.policy.enabled,
  first_seen: iso(t.firstSeen),
});

const answer = ({ upstream: u, tools }: UpstreamView) => ({
  name: u.name,
  url: u.url,
  timeout_ms: u.timeoutMs,
  credential: u.credential ? { header: u.credential.header } : null,
  protocol_version: u.protocolVersion,
  added_at: iso(u.addedAt),
  added_by: u.addedBy,
  refreshed_at: u.refreshedAt === null ? null : iso(u.refreshedAt),
  problem: u.problem,
  tools: tools.map(tool),
});

export const UPSTREAM_ROUTES: readonly ManagementRoute[] = [
  handle('listUpstreams', async (m, a, { params }) => ({
    body: { upstreams: (await m.listUpstreams(a, params.project)).map(answer) },
  })),
  handle('addUpstream', async (m, a, { params, body }) => {
    const input = {
      name: body.name,
      url: body.url,
      ...(body.timeout_ms === undefined ? {} : { timeoutMs: body.timeout_ms }),
      ...(body.credential === undefined ? {} : { credential: body.credential }),
    };
    return { status: 201, body: answer(await m.addUpstream(a, params.project, input)) };
  }),
  handle('getUpstream', async (m, a, { params }) => ({ body: answer(await m.getUpstream(a, params.project, params.name)) })),
  handle('updateUpstream', async (m, a, { params, body }) => {
    const change = {
      ...(body.url === undefined ? {} : { url: body.url }),
      ...(body.timeout_ms === undefined ? {} : { timeoutMs: body.timeout_ms }),
      ...(body.credential === undefined ? {} : { credential: body.credential }),
    };
    return { body: answer(await m.updateUpstream(a, params.project, params.name, change)) };
  }),
  handle('refreshUpstream', async (m, a, { params }) => ({ body: answer(await m.refreshUpstream(a, params.project, params.name)) })),
  handle('setUpstreamTool', async (m, a, { params, body }) => {
    const change = {
      ...(body.level === undefined ? {} : { level: body.level }),
      ...(body.plan === undefined ? {} : { plan: body.plan }),
      ...(body.surfaces === undefined ? {} : { surfaces: [...body.surfaces] }),
      ...(body.agents === undefined ? {} : { agents: body.agents }),
      ...(body.counts_as_query === undefined ? {} : { countsAsQuery: body.counts_as_query }),
      ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
      ...(body.accept_change === undefined ? {} : { acceptChange: body.accept_change }),
    };
    return { body: answer(await m.setUpstreamTool(a, params.project, params.name, params.tool, change)) };
  }),
  handle('removeUpstream', async (m, a, { params }) => {
    await m.removeUpstream(a, params.project, params.name);
    return { body: { name: params.name, removed: true } };
  }),
];
