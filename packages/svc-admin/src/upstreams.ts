/**
 * svc-admin upstreams list|refresh|remove: a project's upstream MCP servers (docs/upstream-servers.md),
 * through the management layer's listUpstreams, refreshUpstream and removeUpstream, so the operator
 * meets the API's rules and answers and each change is audited as `service:svc-admin`. Adding one
 * and its tools' rows are the project admins' (dashboard, REST): they need a person's second factor.
 */
import { upstreamAnswer, type UpstreamView } from '@svc/upstreams';
import { operatorActor, req, type Command } from './command-kit.ts';

/** An upstream as the management API answers it, its tools by name as getUpstream orders them (a list's read keeps the store's order). */
const shown = (view: UpstreamView) => {
  const answer = upstreamAnswer(view);
  return { ...answer, tools: [...answer.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) };
};

export const UPSTREAM_COMMANDS: Record<string, Command> = {
  'upstreams list': async (_a, o, io) => {
    const project = req(o, 'project');
    return { project, upstreams: (await io.management.listUpstreams(operatorActor(), project)).map(shown) };
  },
  // Reads its tools now, as the gateways do every few minutes: new ones start off, changed ones wait.
  'upstreams refresh': async (_a, o, io) => {
    const view = await io.management.refreshUpstream(operatorActor(), req(o, 'project'), req(o, 'name'));
    return { ...shown(view), flagged: view.flagged ?? [] };
  },
  'upstreams remove': async (_a, o, io) => {
    const name = req(o, 'name');
    await io.management.removeUpstream(operatorActor(), req(o, 'project'), name);
    return { name, removed: true };
  },
};
