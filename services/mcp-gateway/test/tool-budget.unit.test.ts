/** A tool call has a time budget: past it the caller gets an isError answer, not a hang. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '@svc/logger';
import { prepareCall } from '../src/methods/prepare-call.ts';
import { runTool } from '../src/methods/tools-call.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import type { ResolvedCaller } from '../src/auth/caller.ts';
import type { ToolCaller } from '../src/tools/types.ts';

test('a call past its time budget answers isError naming the budget, and the late result is dropped', async () => {
  let finish: () => void = () => {};
  const never = new Promise<void>((r) => (finish = r));
  const registry = new ToolRegistry([
    {
      name: 'svc_help',
      title: 'slow',
      description: 'a tool that waits on a store that does not answer',
      inputSchema: { type: 'object', properties: {} },
      async call() {
        await never;
        return { content: [{ type: 'text', text: 'late' }] };
      },
    },
  ]);
  const policy = { role: 'VIEWER', serviceAccount: false, plan: 'FREE', agents: false, surface: 'hosted', endpoint: 'project' } as const;
  const prepared = prepareCall(registry, { name: 'svc_help', arguments: {} }, policy, false);
  assert.equal(prepared.refusal, null);
  const outcomes: string[] = [];
  const run = runTool({ logger: createLogger({ service: 't', silent: true }), timeBudgetMs: 30, onCall: (_t, o) => outcomes.push(o) });
  const result = await run(prepared, {
    caller: {} as ResolvedCaller,
    toolCaller: {} as ToolCaller,
    policy,
    toolSet: null,
    requestId: 'r1',
    prepared,
  });
  assert.equal(result.isError, true);
  assert.match(result.content[0]!.text, /took longer than 0 s|took longer than/);
  assert.deepEqual(outcomes, ['failed']);
  finish();
});
