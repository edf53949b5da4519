/**
 * A project's upstream MCP servers (docs/upstream-servers.md): its admins register, change, refresh
 * and remove them and edit their tools' policy rows; each change is audited. Without the service
 * (ManagementDeps.upstreams) every operation answers 404.
 */
import { UpstreamInputError, type ToolChange, type UpstreamChange, type Upstreams, type UpstreamView } from '@svc/upstreams';
import type { ManagementContext } from './context.ts';
import type { AnswerOf } from './contract/define.ts';
import type * as contract from './contract/upstreams.ts';
import { ManagementError, type Actor } from './types.ts';

/** A project's upstream MCP servers (docs/upstream-servers.md): its admins'. */
export interface UpstreamOperations {
  listUpstreams(actor: Actor, project: string): Promise<UpstreamView[]>;
  getUpstream(actor: Actor, project: string, name: string): Promise<UpstreamView>;
  /** Registers a server: its tools are read at once (a server svc cannot read is refused, naming why). */
  addUpstream(
    actor: Actor,
    project: string,
    input: { name: string; url: string; timeoutMs?: number; credential?: { header: string; value: string } },
  ): Promise<UpstreamView>;
  updateUpstream(actor: Actor, project: string, name: string, change: UpstreamChange): Promise<UpstreamView>;
  refreshUpstream(actor: Actor, project: string, name: string): Promise<UpstreamView>;
  setUpstreamTool(actor: Actor, project: string, name: string, tool: string, change: ToolChange): Promise<UpstreamView>;
  removeUpstream(actor: Actor, project: string, name: string): Promise<AnswerOf<typeof contract.removeUpstream>>;
}

/** The operations of this group, on the shared context (each is described on UpstreamOperations). */
export function upstreamOperations(ctx: ManagementContext, service: Upstreams | undefined): UpstreamOperations {
  const { note, adminOf } = ctx;
  const serviceFor = async (actor: Actor, project: string, what: string) => {
    const p = await adminOf(actor, project, what);
    if (!service) throw new ManagementError(404, 'Upstream MCP servers are not offered here.');
    return { s: service, workspace: p.project.workspace };
  };
  // Only the URL's origin is audited: a path or query may carry a token (as for webhooks, docs/audit.md).
  const target = (v: UpstreamView) => `upstream:${v.upstream.name} (${new URL(v.upstream.url).origin})`;

  return {
    async listUpstreams(actor, project) {
      const { s } = await serviceFor(actor, project, 'see upstream servers');
      const all = await s.read(project);
      return all.upstreams.map((upstream) => ({ upstream, tools: all.tools.filter((t) => t.upstream === upstream.name) }));
    },

    async getUpstream(actor, project, name) {
      const { s } = await serviceFor(actor, project, 'see upstream servers');
      const found = await s.view(project, name);
      if (!found) throw new ManagementError(404, `This project has no upstream server named ${name}.`);
      return found;
    },

    async addUpstream(actor, project, input) {
      const { s, workspace } = await serviceFor(actor, project, 'register upstream servers');
      const added = await refusing(s.register({ ...input, project, workspace, addedBy: actor.label }));
      await note(actor, workspace, 'upstream.added', target(added), { tools: String(added.tools.length) });
      return added;
    },

    async updateUpstream(actor, project, name, change) {
      const { s, workspace } = await serviceFor(actor, project, 'change upstream servers');
      const changed = await refusing(s.update(project, workspace, name, change));
      const what = [
        change.url === undefined ? '' : 'url',
        change.timeoutMs === undefined ? '' : 'timeout',
        change.credential === undefined ? '' : 'credential',
      ];
      await note(actor, workspace, 'upstream.changed', target(changed), { changed: what.filter(Boolean).join(' ') });
      return changed;
    },

    async refreshUpstream(actor, project, name) {
      const { s, workspace } = await serviceFor(actor, project, 'refresh upstream servers');
      const refreshed = await refusing(s.refresh(project, workspace, name));
      await note(actor, workspace, 'upstream.refreshed', target(refreshed), { problem: refreshed.upstream.problem ?? '' });
      if (refreshed.flagged?.length)
        await note(actor, workspace, 'upstream.tools_changed', target(refreshed), { project, tools: refreshed.flagged.join(' ') });
      return refreshed;
    },

    async setUpstreamTool(actor, project, name, tool, change) {
      const { s, workspace } = await serviceFor(actor, project, "change upstream tools' rows");
      const changed = await refusing(s.setTool(project, name, tool, change));
      const row = changed.tools.find((t) => t.name === tool)!;
      await note(actor, workspace, 'upstream.tool_changed', `${target(changed)} tool ${tool}`, {
        level: row.policy.level,
        enabled: String(row.policy.enabled),
        ...(change.cost === undefined ? {} : { cost: String(row.policy.cost) }),
        ...(change.acceptChange ? { accepted: 'true' } : {}),
      });
      return changed;
    },

    async removeUpstream(actor, project, name) {
      const { s, workspace } = await serviceFor(actor, project, 'remove upstream servers');
      const removed = await s.remove(project, name);
      if (!removed) throw new ManagementError(404, `This project has no upstream server named ${name}.`);
      await note(actor, workspace, 'upstream.removed', `upstream:${removed.name} (${new URL(removed.url).origin})`);
      return { name, removed: true };
    },
  };
}

/** The service's refusals of the input as the API's (400, 404 or 409 naming the field). */
async function refusing<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof UpstreamInputError) throw new ManagementError(err.status, err.message, err.field);
    throw err;
  }
}
