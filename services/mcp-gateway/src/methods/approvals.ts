/**
 * Approval-gated calls (docs/approvals.md): a call of a tool whose row asks for an approval is
 * stored and answered with a denial naming the pending approval (a task, to a client that declares
 * MCP Tasks: tools-call.ts); once an admin approves it, the caller's next svc_approval_status or
 * tasks/get runs it, once, with the stored arguments, as that caller (their level checked again by
 * the tool's row), and keeps its answer for later polls; tasks/cancel withdraws it.
 */
import {
  AccountError,
  APPROVAL_TIMING,
  approvalCallerKey,
  approvalCallHash,
  isFirstPartyClient,
  type Accounts,
  type Approval,
} from '@svc/accounts';
import { SvcError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import { approvalNeeded, describeRefusal, evaluate, type CallerContext } from '@svc/policy';
import type { ToolLookup } from '../tools/registry.ts';
import type { ToolCaller, ToolResult, ToolsBeside } from '../tools/types.ts';
import { text, ToolFailure } from '../tools/types.ts';
import type { PreparedCall } from './prepare-call.ts';
import type { RunContext } from './tools-call.ts';

/** An OAuth token of a client svc does not vouch for (an API key's `svc-key:` client is svc's own). */
const thirdPartyClient = (caller: ToolCaller) => !caller.clientId.startsWith('svc-key:') && !isFirstPartyClient(caller.clientId);

const iso = (ms: number) => new Date(ms).toISOString();

/** The answer kept for later polls: the answer itself, or a note when it is over APPROVAL_TIMING.resultBytes. */
function kept(a: Approval, result: ToolResult): Record<string, unknown> {
  const bytes = Buffer.byteLength(JSON.stringify(result));
  if (bytes <= APPROVAL_TIMING.resultBytes) return result as unknown as Record<string, unknown>;
  const note = `${a.tool} ran and answered ${bytes} bytes, more than the ${APPROVAL_TIMING.resultBytes} kept: the answer went whole to the poll that ran it.`;
  return { content: [{ type: 'text', text: note }], isError: result.isError === true };
}

/** The hold of runTool (tools-call.ts): stores a call its row's rule holds, and throws the denial naming it. */
export function approvalHold(deps: { accounts: Pick<Accounts, 'approvals'> }) {
  return async function hold(prepared: PreparedCall, ctx: RunContext): Promise<void> {
    const tool = prepared.tool!;
    const caller = ctx.toolCaller;
    if (!approvalNeeded(tool.policy.approval, { role: caller.role, thirdPartyClient: thirdPartyClient(caller) })) return;
    if (!caller.project)
      throw new SvcError('access_denied', {
        message: `Access denied: ${tool.def.name} needs an approval, asked on a project endpoint`,
        inBody: true,
      });
    const approval = await deps.accounts.approvals
      .create(
        {
          project: caller.project,
          workspace: caller.workspace,
          tool: tool.def.name,
          arguments: prepared.args,
          caller: { type: caller.type, id: caller.id, label: caller.label, clientId: caller.clientId },
        },
        { ...caller.origin, agent: { clientId: caller.clientId } },
      )
      .catch((err: unknown) => {
        if (err instanceof AccountError && err.code === 'limit') throw new SvcError('conflict', { message: err.message, inBody: true });
        if (err instanceof AccountError && err.code === 'invalid')
          throw new SvcError('invalid_params', { message: `Invalid params: ${err.message}`, inBody: true });
        throw err;
      });
    throw new SvcError('access_denied', {
      message: `Approval required: ${tool.def.name} waits for an admin of project ${caller.project} to approve this call (approval ${approval.id}, until ${iso(approval.expiresAt)})`,
      // Not a refusal of who the caller is: a JSON-RPC method error, as the plan and surface gates are.
      inBody: true,
      data: {
        gate: 'approval',
        approval_id: approval.id,
        status: 'pending',
        call_hash: approval.callHash,
        expires_at: iso(approval.expiresAt),
      },
      remedy: `Call svc_approval_status with approval_id ${approval.id} until it is decided; an approved call runs then, once.`,
    });
  };
}

export interface CollectorDeps {
  accounts: Pick<Accounts, 'approvals'>;
  logger: Logger;
  /** The built-in tools. */
  registry: ToolLookup;
  /** runTool without a hold: the approved call runs as it is. */
  run: (prepared: PreparedCall, ctx: RunContext) => Promise<ToolResult>;
}

/** The policy context of a caller as the tool sees it, for the level checked again at run time. */
const policyOf = (caller: ToolCaller): CallerContext => ({
  role: caller.role,
  ...(caller.ownRole ? { unscopedRole: caller.ownRole } : {}),
  serviceAccount: caller.serviceAccount,
  plan: caller.plan,
  agents: caller.agents,
  surface: caller.surface,
  endpoint: 'project',
});

/** What became of a held call, as its caller follows it (svc_approval_status, tasks/get). */
export interface Followed {
  approval: Approval;
  /** `refused`: the stored call no longer matches its approval; it never runs. */
  state: 'pending' | 'running' | 'done' | 'denied' | 'expired' | 'cancelled' | 'refused';
  message: string;
  /** The call's answer (`done`). */
  result?: ToolResult;
}

/** svc_approval_status's and tasks/get's work: the state of the caller's approval, the run when it is due, the stored answer after. */
export function approvalFollower(deps: CollectorDeps) {
  const { approvals } = deps.accounts;

  async function runApproved(a: Approval, caller: ToolCaller, beside: ToolsBeside | undefined): Promise<ToolResult> {
    const tool = deps.registry.get(a.tool) ?? (beside?.upstreamTools.get(a.tool) as ReturnType<ToolLookup['get']>);
    let result: ToolResult;
    let outcome: string;
    if (!tool) {
      result = {
        content: [{ type: 'text', text: `${a.tool} is no longer offered on project ${a.project}; the approved call did not run.` }],
        isError: true,
      };
      outcome = 'gone';
    } else {
      const decision = evaluate(tool.policy, policyOf(caller), a.arguments);
      if (!decision.allowed) {
        result = {
          content: [{ type: 'text', text: `The approved call did not run: ${describeRefusal(a.tool, decision)}.` }],
          isError: true,
        };
        outcome = 'refused';
      } else {
        const prepared: PreparedCall = {
          name: a.tool,
          tool,
          args: a.arguments,
          decision,
          legacyName: false,
          refusal: null,
          countsAsQuery: false,
        };
        result = await deps.run(prepared, {
          toolCaller: caller,
          requestId: caller.origin.requestId,
          toolSet: (beside as ToolLookup | undefined) ?? null,
        });
        outcome = result.isError ? 'tool_error' : 'ok';
      }
    }
    await approvals.finish(a.project, a.id, kept(a, result));
    await approvals.noteStep(a, 'approval.ran', { ...caller.origin, agent: { clientId: caller.clientId } }, { outcome });
    return result;
  }

  const followed = (approval: Approval, state: Followed['state'], message: string, result?: ToolResult): Followed =>
    result ? { approval, state, message, result } : { approval, state, message };

  return async function follow(id: string, caller: ToolCaller, beside: ToolsBeside | undefined): Promise<Followed> {
    if (!caller.project) throw new ToolFailure('Approvals are followed on a project endpoint (/mcp/<project_slug>)');
    const a = await approvals.get(caller.project, id);
    // Another caller's approval is as unknown as a missing one: it names nothing of theirs.
    if (!a || approvalCallerKey(a.caller) !== approvalCallerKey(caller))
      throw new ToolFailure(`There is no approval ${id.slice(0, 80)} of yours on project ${caller.project}.`);
    const denied = `An admin denied this call of ${a.tool}; it will not run.`;
    const expired = `This call of ${a.tool} expired before it ran; it will not run.`;
    if (a.status === 'done') return followed(a, 'done', `This call of ${a.tool} ran.`, a.result as unknown as ToolResult);
    if (a.status === 'denied') return followed(a, 'denied', denied);
    if (a.status === 'expired') return followed(a, 'expired', expired);
    if (a.status === 'cancelled') return followed(a, 'cancelled', `This call of ${a.tool} was withdrawn by its caller; it will not run.`);
    if (a.status === 'running') return followed(a, 'running', `This call of ${a.tool} is running; ask again for its answer.`);
    const claim = await approvals.claim(a.project, a.id, caller, approvalCallHash({ ...a, caller }));
    if (claim === 'claimed') return followed(a, 'done', `This call of ${a.tool} ran.`, await runApproved(a, caller, beside));
    if (claim === 'expired_now') {
      await approvals.noteStep(a, 'approval.expired', { ...caller.origin, agent: { clientId: caller.clientId } });
      return followed(a, 'expired', expired);
    }
    if (claim === 'pending')
      return followed(a, 'pending', `This call of ${a.tool} waits for an admin's approval until ${iso(a.expiresAt)}; ask again later.`);
    // The stored call no longer matches the hash it was approved by, or is not this caller's: it never runs.
    if (claim === 'mismatch' || claim === 'other_caller')
      return followed(a, 'refused', `This call of ${a.tool} does not match its approval; it will not run.`);
    // Another poll moved it meanwhile (it runs or ran, or expired): the record now says what became of it.
    return follow(id, caller, beside);
  };
}

/** svc_approval_status's answer: the state in structuredContent; once the call ran, its own answer. */
export function asToolResult(f: Followed): ToolResult {
  const a = f.approval;
  if (f.state === 'done' && f.result)
    return {
      ...f.result,
      structuredContent: { approval_id: a.id, tool: a.tool, status: 'done', result: f.result as unknown as Record<string, unknown> },
    };
  const structured: Record<string, unknown> = { approval_id: a.id, tool: a.tool, status: f.state };
  if (f.state === 'pending') structured['expires_at'] = iso(a.expiresAt);
  const answer = text(f.message, structured);
  return f.state === 'denied' || f.state === 'expired' || f.state === 'cancelled' || f.state === 'refused'
    ? { ...answer, isError: true }
    : answer;
}

/**
 * tasks/cancel's work (SEP-2663 "Cancellation"): the caller withdraws its own held call that has
 * not run; one that ran, or was decided against, keeps its state. Another caller's id is unknown.
 */
export function approvalCanceller(deps: { accounts: Pick<Accounts, 'approvals'> }) {
  const { approvals } = deps.accounts;
  return async function cancel(id: string, caller: ToolCaller): Promise<void> {
    const a = caller.project ? await approvals.get(caller.project, id) : null;
    if (!a || approvalCallerKey(a.caller) !== approvalCallerKey(caller))
      throw new ToolFailure(`There is no approval ${id.slice(0, 80)} of yours on project ${caller.project ?? '(none)'}.`);
    const outcome = await approvals.cancel(a.project, a.id, caller);
    const origin = { ...caller.origin, agent: { clientId: caller.clientId } };
    if (outcome === 'cancelled') await approvals.noteStep(a, 'approval.cancelled', origin);
    if (outcome === 'expired_now') await approvals.noteStep(a, 'approval.expired', origin);
  };
}
