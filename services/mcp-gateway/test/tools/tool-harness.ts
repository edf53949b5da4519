/**
 * Calls the tools as the gateway does, without HTTP and authentication: the gateway's own tool list
 * (createTools), registry, policy decision (prepareCall) and tools/call handler (toolsCall), with a
 * caller built here. Only the credential and the rate limit are left out. Real Redis, no mocks.
 */
import type { Redis } from '@svc/accounts';
import { createAccounts } from '@svc/accounts';
import { createLogger } from '@svc/logger';
import type { CallerContext, Endpoint } from '@svc/policy';
import type { ResolvedCaller } from '../../src/auth/caller.ts';
import { prepareCall } from '../../src/methods/prepare-call.ts';
import { toolsCall } from '../../src/methods/tools-call.ts';
import { createTools } from '../../src/tools/index.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import type { ToolCaller, ToolResult } from '../../src/tools/types.ts';

export function caller(project: string | null, over: Partial<ToolCaller> = {}): ToolCaller {
  return {
    type: 'key',
    id: `key-${project}`,
    label: `key of ${project}`,
    role: 'ADMIN',
    serviceAccount: false,
    plan: 'ENTERPRISE',
    agents: true,
    surface: 'orchestrator',
    project,
    workspace: 'ws',
    grantedProjects: [],
    sessionId: `session-${project}`,
    clientId: `svc-key:key-${project}`,
    origin: { source: '192.0.2.1', requestId: `req-${project}` },
    ...over,
  };
}

export function harness(redis: Redis) {
  const logger = createLogger({ service: 'tool-harness', level: 'error', silent: true });
  const accounts = createAccounts(redis, { pepper: 'tool-harness-pepper-0123456789abcdef', bcryptCost: 4 });
  const registry = new ToolRegistry(createTools({ redis, accounts, logger }));
  const handler = toolsCall({ logger });

  /**
   * What tools/call answers for `who`: a result (invalid arguments and tool failures are isError
   * results), or the SvcError the gateway sends (unknown tool, refused by the policy). The endpoint
   * is the one `who` implies (team when it has no project) unless given.
   */
  async function call(name: string, args: unknown, who: ToolCaller, options: { endpoint?: Endpoint } = {}): Promise<ToolResult> {
    const policy: CallerContext = {
      role: who.role,
      serviceAccount: who.serviceAccount,
      plan: who.plan,
      agents: who.agents,
      surface: who.surface,
      endpoint: options.endpoint ?? (who.project === null ? 'team' : 'project'),
    };
    const resolved: ResolvedCaller = {
      type: who.type,
      id: who.id,
      label: who.label,
      role: who.role,
      serviceAccount: who.serviceAccount,
      project: who.project,
      workspace: who.workspace,
      plan: who.plan,
      payer: { workspace: who.workspace, plan: who.plan },
      agents: who.agents,
      grantedProjects: who.grantedProjects,
      legacy: false,
      defaultSurface: who.surface,
      session: who.sessionId,
      keyHash: '',
      keyLimit: null,
      expiresAt: null,
      allowedIps: null,
    };
    const params = { name, arguments: structuredClone(args) };
    const prepared = prepareCall(registry, params, policy, false);
    return (await handler(params, {
      caller: resolved,
      toolCaller: who,
      policy,
      requestId: 'tool-harness',
      prepared,
      toolSet: null,
    })) as ToolResult;
  }
  return { registry, call };
}

export const textOf = (r: ToolResult) => r.content.map((c) => c.text).join('\n');
