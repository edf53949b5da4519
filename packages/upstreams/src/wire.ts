/**
 * An upstream server as the management API answers it (the management contract's upstream answer,
 * docs/upstream-servers.md): its settings, its tools' policy rows under the API's names, and never
 * a credential's value, only the header it goes in. REST and svc-admin answer the same.
 */
import { listedName } from './names.ts';
import type { UpstreamTool } from './types.ts';
import type { UpstreamView } from './upstreams.ts';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

const descriptorAnswer = (d: UpstreamTool['descriptor']) => ({
  ...(d.title === undefined ? {} : { title: d.title }),
  description: d.description,
  input_schema: d.inputSchema,
  ...(d.annotations === undefined ? {} : { annotations: d.annotations }),
});

const toolAnswer = (t: UpstreamTool) => ({
  name: t.name,
  listed_name: listedName(t.upstream, t.name) ?? t.name,
  state: t.state,
  descriptor: descriptorAnswer(t.descriptor),
  pending: t.pending ? descriptorAnswer(t.pending) : null,
  level: t.policy.level,
  plan: t.policy.plan,
  surfaces: t.policy.surfaces,
  agents: t.policy.agents,
  counts_as_query: t.policy.countsAsQuery,
  cost: t.policy.cost ?? 1,
  enabled: t.policy.enabled,
  approval: t.policy.approval ?? 'none',
  first_seen: iso(t.firstSeen),
});

/** The API's answer for one upstream server and its tools. */
export function upstreamAnswer({ upstream: u, tools }: UpstreamView) {
  return {
    name: u.name,
    url: u.url,
    timeout_ms: u.timeoutMs,
    credential: u.credential ? { header: u.credential.header } : null,
    protocol_version: u.protocolVersion,
    added_at: iso(u.addedAt),
    added_by: u.addedBy,
    refreshed_at: iso(u.refreshedAt),
    problem: u.problem,
    tools: tools.map(toolAnswer),
  };
}
