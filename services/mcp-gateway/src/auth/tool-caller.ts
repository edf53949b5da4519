/** The caller as tools see it, on one request. */
import type { IncomingHttpHeaders } from 'node:http';
import type { Surface } from '@svc/policy';
import type { ToolCaller } from '../tools/types.ts';
import type { ResolvedCaller } from './caller.ts';

const SESSION_ID = /^[\x21-\x7e]{1,128}$/;

/** A 2025-era MCP session id (when sent) narrows the credential's own session (swarm leases, memories). */
export function toolCaller(
  c: ResolvedCaller,
  surface: Surface,
  headers: IncomingHttpHeaders,
  origin: { source: string; requestId: string },
): ToolCaller {
  const mcpSession = headers['mcp-session-id'];
  const session = typeof mcpSession === 'string' && SESSION_ID.test(mcpSession) ? `${c.session}:${mcpSession}` : c.session;
  // One literal, the optional member added after it: a spread inside a literal is copied by a
  // runtime call on every request.
  const caller: ToolCaller = {
    type: c.type,
    id: c.id,
    label: c.label,
    role: c.role,
    serviceAccount: c.serviceAccount,
    plan: c.plan,
    agents: c.agents,
    surface,
    project: c.project,
    workspace: c.workspace,
    grantedProjects: c.grantedProjects,
    sessionId: session,
    origin,
    clientId: c.clientId ?? `svc-key:${c.session}`,
  };
  if (c.unscopedRole) caller.ownRole = c.unscopedRole;
  return caller;
}
