/**
 * Calls the knowledge tools as the gateway would, without HTTP: the tool's schema is enforced by
 * the registry's own ajv, then `call` runs with a caller built here. Real Redis, no mocks.
 */
import { createKnowledge, type Knowledge } from '@svc/knowledge';
import type { Redis } from 'ioredis';
import { describeArgumentErrors, ToolRegistry } from '../../src/tools/registry.ts';
import { svcAsk } from '../../src/tools/svc-ask.ts';
import { svcClaim } from '../../src/tools/svc-claim.ts';
import { svcContextQuery } from '../../src/tools/svc-context-query.ts';
import { svcHtaskCreate } from '../../src/tools/svc-htask-create.ts';
import { svcInject } from '../../src/tools/svc-inject.ts';
import { svcMultiProjectQuery } from '../../src/tools/svc-multi-project-query.ts';
import { svcRecall } from '../../src/tools/svc-recall.ts';
import { svcRemember } from '../../src/tools/svc-remember.ts';
import { svcSearch } from '../../src/tools/svc-search.ts';
import { svcSwarmCreate } from '../../src/tools/svc-swarm-create.ts';
import { svcUploadDocument } from '../../src/tools/svc-upload-document.ts';
import type { ToolCaller, ToolDefinition, ToolResult } from '../../src/tools/types.ts';
import { ToolFailure } from '../../src/tools/types.ts';

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
    ...over,
  };
}

export function harness(redis: Redis) {
  const knowledge: Knowledge = createKnowledge(redis);
  const d = { knowledge };
  const defs = [
    svcUploadDocument(d),
    svcSearch(d),
    svcContextQuery(d),
    svcAsk(d),
    svcInject(d),
    svcRemember(d),
    svcRecall(d),
    svcSwarmCreate(d),
    svcClaim(d),
    svcHtaskCreate(d),
    svcMultiProjectQuery(d),
  ] as unknown as ToolDefinition[];
  const registry = new ToolRegistry(defs);
  /** What tools/call answers: invalid arguments and ToolFailure become isError results. */
  async function call(name: string, args: Record<string, unknown>, who: ToolCaller): Promise<ToolResult> {
    const tool = registry.get(name);
    if (!tool) throw new Error(`no tool ${name}`);
    const copy = structuredClone(args);
    if (!tool.validate(copy))
      return {
        content: [{ type: 'text', text: `Invalid arguments for ${name}: ${describeArgumentErrors(tool.validate)}` }],
        isError: true,
      };
    try {
      return await tool.def.call(copy, who);
    } catch (err) {
      if (err instanceof ToolFailure) return { content: [{ type: 'text', text: err.message }], isError: true };
      throw err;
    }
  }
  return { knowledge, registry, call };
}

export const textOf = (r: ToolResult) => r.content.map((c) => c.text).join('\n');
