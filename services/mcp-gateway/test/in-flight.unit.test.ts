/**
 * The cap on a credential's tool calls in progress (docs/operations.md "Limits for agents") through
 * the real tools/call handler: every way a call can end — an answer, a tool error, a sync throw,
 * an async failure, a refusal thrown by the tool, its time budget, an abort — gives its slot back,
 * with one call alone or with the cap's worth running together (one more is refused while they
 * run), and the credential then has every slot again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SvcError } from '@svc/errors';
import { BUCKETS } from '@svc/limits';
import { createLogger } from '@svc/logger';
import type { ResolvedCaller } from '../src/auth/caller.ts';
import { prepareCall } from '../src/methods/prepare-call.ts';
import { toolsCall } from '../src/methods/tools-call.ts';
import type { RpcContext } from '../src/methods/types.ts';
import { createInFlightCap } from '../src/methods/in-flight.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import type { ToolCaller, ToolResult } from '../src/tools/types.ts';
import { ToolFailure } from '../src/tools/types.ts';

const CAP = BUCKETS.toolCallsInFlight.concurrent;

/** Each way a call ends, as the tool's behaviour once released (`go`), and what the caller sees. */
const EXITS: Record<string, { tool: (go: Promise<void>, signal: AbortSignal) => Promise<ToolResult>; answered: boolean }> = {
  answer: { tool: async (go) => (await go, { content: [{ type: 'text', text: 'ok' }] }), answered: true },
  'tool error': {
    tool: async (go) => {
      await go;
      throw new ToolFailure('no such document');
    },
    answered: true,
  },
  'sync throw': {
    tool: () => {
      throw new Error('broken before its first await');
    },
    answered: true,
  },
  'async failure': {
    tool: async (go) => {
      await go;
      throw new Error('unexpected');
    },
    answered: true,
  },
  'refusal thrown': {
    tool: async (go) => {
      await go;
      throw new SvcError('invalid_params', { message: 'refused by the tool' });
    },
    answered: false,
  },
  'time budget': { tool: () => new Promise<ToolResult>(() => undefined), answered: true },
  abort: {
    tool: (_go, signal) =>
      new Promise<ToolResult>((_ok, fail) => signal.addEventListener('abort', () => fail(new Error('aborted')), { once: true })),
    answered: true,
  },
};

for (const [exit, { tool, answered }] of Object.entries(EXITS)) {
  for (const together of [1, CAP]) {
    test(`tools/call ending by ${exit}, ${together} at once: every slot is given back`, async () => {
      let release: () => void = () => undefined;
      const go = new Promise<void>((r) => (release = r));
      const abort = new AbortController();
      const registry = new ToolRegistry([
        {
          name: 'svc_help',
          title: 't',
          description: 'a tool ending one way',
          inputSchema: { type: 'object', properties: {} },
          call: () => tool(go, abort.signal),
        },
      ]);
      const policy = {
        role: 'VIEWER',
        serviceAccount: false,
        plan: 'FREE',
        agents: false,
        surface: 'hosted',
        endpoint: 'project',
      } as const;
      const prepared = prepareCall(registry, { name: 'svc_help', arguments: {} }, policy, false);
      const cap = createInFlightCap(BUCKETS.toolCallsInFlight);
      const handler = toolsCall({ logger: createLogger({ service: 't', silent: true }), timeBudgetMs: 20, inFlight: cap });
      const ctx = {
        caller: { session: 'grant-1' } as ResolvedCaller,
        toolCaller: {} as ToolCaller,
        policy,
        toolSet: null,
        requestId: 'r1',
        prepared,
      } as unknown as RpcContext;
      const calls = Array.from({ length: together }, () => handler({}, ctx));
      assert.equal(cap.inFlight('grant-1'), together, 'a slot per call in progress');
      if (together === CAP) {
        const over = await handler({}, ctx).then(
          () => null,
          (err: unknown) => err,
        );
        assert.ok(over instanceof SvcError && over.code === 'rate_limited', 'one more than the cap is refused');
        assert.deepEqual([over.data['limit'], over.data['remaining']], [CAP, 0]);
      }
      release();
      abort.abort();
      const settled = await Promise.allSettled(calls);
      assert.equal(
        settled.every((s) => s.status === (answered ? 'fulfilled' : 'rejected')),
        true,
        exit,
      );
      assert.equal(cap.inFlight('grant-1'), 0, 'every slot given back');
      // The credential has its whole cap again.
      const again = Array.from({ length: CAP }, () => cap.run('grant-1', () => Promise.resolve(1)));
      assert.deepEqual(await Promise.all(again), Array(CAP).fill(1));
    });
  }
}
