/**
 * The wire adapters of a project's upstream MCP servers (docs/upstream-servers.md): their views
 * as upstreamAnswer shows them, and the bodies' names as the layer's. Removing one answers as the
 * layer does.
 */
import { upstreamAnswer as answer } from '@svc/upstreams';
import type { WireAdapters } from './wire.ts';

export const UPSTREAM_ADAPTERS = {
  listUpstreams: async (m, a, { params }) => ({
    body: { upstreams: (await m.listUpstreams(a, params.project)).map(answer) },
  }),
  addUpstream: async (m, a, { params, body }) => {
    const input = {
      name: body.name,
      url: body.url,
      ...(body.timeout_ms === undefined ? {} : { timeoutMs: body.timeout_ms }),
      ...(body.credential === undefined ? {} : { credential: body.credential }),
    };
    return { status: 201, body: answer(await m.addUpstream(a, params.project, input)) };
  },
  getUpstream: async (m, a, { params }) => ({ body: answer(await m.getUpstream(a, params.project, params.name)) }),
  updateUpstream: async (m, a, { params, body }) => {
    const change = {
      ...(body.url === undefined ? {} : { url: body.url }),
      ...(body.timeout_ms === undefined ? {} : { timeoutMs: body.timeout_ms }),
      ...(body.credential === undefined ? {} : { credential: body.credential }),
    };
    return { body: answer(await m.updateUpstream(a, params.project, params.name, change)) };
  },
  refreshUpstream: async (m, a, { params }) => ({ body: answer(await m.refreshUpstream(a, params.project, params.name)) }),
  setUpstreamTool: async (m, a, { params, body }) => {
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
  },
} satisfies WireAdapters;
