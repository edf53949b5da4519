/**
 * tools/call, after prepareCall settled the tool, the policy and the arguments. Refusals: unknown
 * tool -32602; policy access_denied (a JSON-RPC error naming the gate); arguments that fail the
 * tool's schema, and failures the model should correct, are results with isError (MCP 2025-11-25
 * "Error Handling").
 */
import { APPROVAL_TIMING, isStoreError } from '@svc/accounts';
import { SvcError } from '@svc/errors';
import { SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { Logger } from '@svc/logger';
import type { ToolResult } from '../tools/types.ts';
import { ToolFailure } from '../tools/types.ts';
import type { PreparedCall, Refusal } from './prepare-call.ts';
import type { InFlightCap } from './in-flight.ts';
import { taskOf } from './task-shape.ts';
import type { MethodHandler, RpcContext } from './types.ts';

export type CallOutcome = 'ok' | 'tool_error' | 'invalid_arguments' | 'denied' | 'failed';

export interface ToolsCallDeps {
  logger: Logger;
  onCall?: (tool: string, outcome: CallOutcome) => void;
  /** The most one call may take before its caller gets an isError answer (default TOOL_TIME_BUDGET_MS). */
  timeBudgetMs?: number;
  /** Tracing on: each call is a span named after its tool (docs/operations.md "Traces"). */
  tracer?: Tracer | null;
  /**
   * Holds a call whose tool's row asks for an approval (docs/approvals.md): throws the denial that
   * names the pending approval instead of letting it run. Absent: every call runs.
   */
  hold?: (prepared: PreparedCall, ctx: RunContext) => Promise<void>;
  /** The cap on a credential's calls in progress (in-flight.ts). Absent: no cap. */
  inFlight?: InFlightCap;
}

/** What running a tool reads of the request. */
export type RunContext = Pick<RpcContext, 'toolCaller' | 'requestId' | 'toolSet'> & Partial<RpcContext>;

/**
 * A call's time budget (docs/security.md "Denial of service"): a tool waiting on a slow store or
 * embeddings endpoint answers isError instead of holding its client. The work itself is kept
 * linear in its input (the Markdown splitter, the search), so the event loop is never held long.
 */
const TOOL_TIME_BUDGET_MS = 15_000;

class OverBudget extends Error {}

/**
 * Holds each call to `ms`: the calls in progress are kept in arrival order with their deadlines,
 * and one timer, running only while some call is in progress, fails those past theirs (at most a
 * tenth of the budget late). A timer per call cost more than many of the calls it watched.
 */
function budget(ms: number): <T>(work: Promise<T>) => Promise<T> {
  const watched = new Set<{ until: number; fail: (err: Error) => void }>();
  let timer: NodeJS.Timeout | null = null;
  const sweep = () => {
    const t = performance.now();
    // Every call has the same budget, so arrival order is deadline order.
    for (const w of watched) {
      if (w.until > t) break;
      watched.delete(w);
      w.fail(new OverBudget());
    }
    if (watched.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
  return (work) =>
    new Promise((resolve, reject) => {
      // The monotonic clock: arrival order stays deadline order if the wall clock is set back.
      const w = { until: performance.now() + ms, fail: reject };
      watched.add(w);
      if (!timer) timer = setInterval(sweep, Math.max(1, Math.ceil(ms / 10))).unref();
      work.then(
        (value) => {
          watched.delete(w);
          resolve(value);
        },
        (err: unknown) => {
          watched.delete(w);
          reject(err);
        },
      );
    });
}

const failure = (message: string): ToolResult => ({ content: [{ type: 'text', text: message }], isError: true });

/** Runs a prepared call that passed every check; a refused one must not reach here. */
export function runTool(deps: ToolsCallDeps) {
  const budgetMs = deps.timeBudgetMs ?? TOOL_TIME_BUDGET_MS;
  const withinBudget = budget(budgetMs);
  const hold = deps.hold;
  const run = async (prepared: PreparedCall, ctx: RunContext): Promise<ToolResult> => {
    const tool = prepared.tool;
    if (!tool) throw new Error('runTool: no tool');
    if (hold && tool.policy.approval !== undefined && tool.policy.approval !== 'none') await hold(prepared, ctx);
    try {
      // Only a tool that declares it reads the project's other tools is given them (svc_help).
      const call = tool.def.readsToolSet
        ? tool.def.call(prepared.args, ctx.toolCaller, ctx.toolSet ?? undefined)
        : tool.def.call(prepared.args, ctx.toolCaller);
      const result = await (tool.def.selfTimed ? call : withinBudget(call));
      deps.onCall?.(tool.def.name, result.isError ? 'tool_error' : 'ok');
      return result;
    } catch (err) {
      if (err instanceof OverBudget) {
        deps.onCall?.(tool.def.name, 'failed');
        deps.logger.warn('tool over its time budget', { tool: tool.def.name, requestId: ctx.requestId });
        return failure(`${tool.def.name} took longer than ${Math.round(budgetMs / 1000)} s and was abandoned; try a narrower request.`);
      }
      if (err instanceof ToolFailure) {
        deps.onCall?.(tool.def.name, 'tool_error');
        return failure(err.message);
      }
      if (err instanceof SvcError) throw err;
      deps.onCall?.(tool.def.name, 'failed');
      deps.logger.error('tool failed', { tool: tool.def.name, requestId: ctx.requestId, err });
      if (isStoreError(err))
        throw new SvcError('service_unavailable', {
          message: 'Service temporarily unavailable: storage cannot be reached',
          detail: String(err),
        });
      return failure(`${tool.def.name} failed unexpectedly; the failure is logged under request id ${ctx.requestId}.`);
    }
  };
  const tracer = deps.tracer;
  if (!tracer) return run;
  return (prepared: PreparedCall, ctx: RunContext) => {
    // A request the sampler dropped has no recording span: its tool call makes none either.
    if (!trace.getActiveSpan()?.isRecording()) return run(prepared, ctx);
    const name = prepared.tool?.def.name ?? 'unknown';
    return tracer.startActiveSpan(`tools/call ${name}`, { attributes: { 'gen_ai.tool.name': name } }, async (span) => {
      try {
        const result = await run(prepared, ctx);
        if (result.isError) span.setStatus({ code: SpanStatusCode.ERROR });
        return result;
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw err;
      } finally {
        span.end();
      }
    });
  };
}

/**
 * SEP-2663 "Task Creation": the CreateTaskResult of a call held for an approval (its record is
 * written before the answer, so tasks/get finds it); any other failure is thrown as it was.
 */
function heldAsTask(err: unknown): Record<string, unknown> {
  if (!(err instanceof SvcError) || err.data['gate'] !== 'approval' || typeof err.data['approval_id'] !== 'string') throw err;
  const createdAt = Date.parse(String(err.data['expires_at'])) - APPROVAL_TIMING.decideWithinMs;
  return { resultType: 'task', ...taskOf(err.data['approval_id'], createdAt, createdAt, 'working', err.message) };
}

export function toolsCall(deps: ToolsCallDeps): MethodHandler {
  const run = runTool(deps);
  const cap = deps.inFlight;
  const refused = async (prepared: PreparedCall, refusal: Refusal): Promise<ToolResult> => {
    deps.onCall?.(prepared.tool?.def.name ?? 'unknown', refusal.kind === 'denied' ? 'denied' : 'invalid_arguments');
    if (refusal.kind === 'denied') throw refusal.error;
    if (refusal.kind === 'unknown_tool') throw new SvcError('invalid_params', { message: refusal.message, inBody: true });
    return failure(refusal.message);
  };
  // Not an async function: it hands back run()'s promise itself, where an async function would wrap
  // it in one more (and two more turns of the microtask queue) on every call.
  return (_params, ctx) => {
    const prepared = ctx.prepared;
    if (!prepared) return Promise.reject(new Error('tools/call: not prepared'));
    if (prepared.refusal) return refused(prepared, prepared.refusal);
    // A client that declared MCP Tasks gets a held call as a task, not as a denial (docs/approvals.md).
    const go = () => (ctx.tasks ? run(prepared, ctx).catch(heldAsTask) : run(prepared, ctx));
    return cap && ctx.caller ? cap.run(ctx.caller.session, go) : go();
  };
}
