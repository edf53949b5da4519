/** The routes of a project's upstream MCP servers (docs/upstream-servers.md). */
import { upstreamAnswer as answer } from '@svc/upstreams';
import { handle, type ManagementRoute } from './handle.ts';

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
      ...(body.cost === undefined ? {} : { cost: body.cost }),
      ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
      ...(body.approval === undefined ? {} : { approval: body.approval }),
      ...(body.accept_change === undefined ? {} : { acceptChange: body.accept_change }),
    };
    return { body: answer(await m.setUpstreamTool(a, params.project, params.name, params.tool, change)) };
  }),
  handle('removeUpstream', async (m, a, { params }) => {
    await m.removeUpstream(a, params.project, params.name);
    return { body: { name: params.name, removed: true } };
  }),
];
