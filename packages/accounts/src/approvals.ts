/**
 * Calls that wait for an admin's approval (docs/approvals.md). A record holds the call exactly as
 * it was made (the tool's canonical name and its arguments), who made it, and `call_hash`, the
 * SHA-256 of the canonical JSON (RFC 8785) of all three with the project: an approval is of that
 * hash, so it applies to those arguments and that caller only. Every move of a record is one Lua
 * script (docs/security.md "Single-use values"): pending to approved or denied, approved to
 * running (the one claim that lets the call run), running to done; a move after the deadline
 * writes `expired` instead. None moves back, so an approval is used at most once.
 */
import { createHash } from 'node:crypto';
import { runScript, script } from '@svc/limits';
import type { ApiKeyStore } from './api-keys.ts';
import { canonicalJson } from './audit-chain.ts';
import type { AuditLog } from './audit.ts';
import type { AuditAgentRef, AuditPrincipal } from './audit-parties.ts';
import type { StoreContext } from './context.ts';
import { newId } from './context.ts';
import { AccountError } from './errors.ts';
import { K } from './keys.ts';

/** How long each step may wait, how long a finished record is kept, and how many a project may hold. */
export const APPROVAL_TIMING = {
  /** A pending call not decided within this is expired (final). */
  decideWithinMs: 60 * 60_000,
  /** An approved call not collected (run) within this of its approval is expired (final). */
  collectWithinMs: 60 * 60_000,
  /** A record is kept this long after its deadline or its run, so its answer can still be read. */
  keptMs: 60 * 60_000,
  /** The most approvals a project holds at once (docs/management.md "Collection limits"). */
  maxOpen: 200,
  /**
   * The largest answer kept for later polls, as JSON: a larger one goes whole to the poll that ran
   * the call, and later polls read a note saying so (200 records of an upstream's 4 MB answers
   * would hold 800 MB of one project's data in Redis).
   */
  resultBytes: 256 * 1024,
  /**
   * The largest arguments a call may be held with, as JSON: an admin reads them on a page, and the
   * project's list holds them all (maxOpen of them; at the request body's 512 KiB, 200 held calls
   * were a list of 104 MB, two seconds of one turn to serialize). A larger call is refused, not held.
   */
  argumentBytes: 16 * 1024,
} as const;

/** The longest a record lives: decided at the deadline, collected at the next, then kept. */
const APPROVAL_LIFETIME_MS = APPROVAL_TIMING.decideWithinMs + APPROVAL_TIMING.collectWithinMs + APPROVAL_TIMING.keptMs;

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'cancelled' | 'running' | 'done';

/** Who made the call: the identity an approval is bound to. */
export interface ApprovalCaller {
  type: 'user' | 'key' | 'bot';
  id: string;
  label: string;
  /** The OAuth client, or `svc-key:<key id>` for an API key. */
  clientId: string;
}

export interface Approval {
  id: string;
  project: string;
  workspace: string;
  /** The tool's canonical name (never a legacy alias). */
  tool: string;
  arguments: Record<string, unknown>;
  caller: ApprovalCaller;
  callHash: string;
  status: ApprovalStatus;
  createdAt: number;
  /** The deadline of the current step: the decision while pending, the run while approved. */
  expiresAt: number;
  decidedBy: string | null;
  decidedAt: number | null;
  /** The stored answer of the run (status `done`). */
  result: Record<string, unknown> | null;
  /** The passkey assertion the approval was given with, when it was (docs/approvals.md "With a passkey"). */
  passkey: PasskeyApproval | null;
}

/**
 * A WebAuthn assertion over one held call (SEP-2672's idea: a person's gesture bound to the exact
 * call): its challenge is approvalChallenge(id, call_hash, nonce), so the signature, checked with
 * the passkey's public key, shows that this person's authenticator approved this call and no other.
 * The parts are kept as the browser gave them (base64url), so anyone can check it again.
 */
export interface PasskeyApproval {
  credentialId: string;
  nonce: string;
  clientDataJSON: string;
  authenticatorData: string;
  signature: string;
}

/** The WebAuthn challenge of a passkey approval of call `callHash` held as `id`: SHA-256 over the three, one per line. */
export function approvalChallenge(id: string, callHash: string, nonce: string): Buffer {
  return createHash('sha256').update(`svc-approval/v1\n${id}\n${callHash}\n${nonce}`, 'utf8').digest();
}

/**
 * The hash an approval is of (RFC 8785 canonical JSON, SHA-256): the project, the tool's canonical
 * name, the arguments exactly as given, and the caller's type and id.
 */
export function approvalCallHash(call: {
  project: string;
  tool: string;
  arguments: Record<string, unknown>;
  caller: Pick<ApprovalCaller, 'type' | 'id' | 'clientId'>;
}): string {
  const body = {
    project: call.project,
    tool: call.tool,
    arguments: call.arguments,
    caller: { type: call.caller.type, id: call.caller.id, clientId: call.caller.clientId },
  };
  return createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
}

/**
 * Who a held call is bound to (docs/approvals.md): the caller and the client it came through (an
 * OAuth client, or the key itself), so another app of the same person, or a sub-agent holding a
 * token delegated from it, neither collects nor withdraws the call the admin approved for this one.
 */
export function approvalCallerKey(caller: Pick<ApprovalCaller, 'type' | 'id' | 'clientId'>): string {
  return `${caller.type}:${caller.id}:${caller.clientId}`;
}

// KEYS: the record, the project's index. ARGV: id, now, kept-until, max, oldest-kept, then field/value
// pairs. Drops index entries older than any record lives, refuses over the bound, writes the record.
const CREATE = script(`
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[5])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 'limit' end
redis.call('HSET', KEYS[1], unpack(ARGV, 6))
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 'ok'`);

// KEYS: the record. ARGV: to ('approved'|'denied'), now, decided_by, the hash the admin approves,
// the new deadline, kept-until, the passkey assertion's JSON ('' for none). The one move out of pending: of two admins deciding at once, one
// decides. Returns 'ok', 'expired_now' (this call wrote the expiry), 'mismatch', or the status found.
const DECIDE = script(`
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return 'missing' end
if st ~= 'pending' then return st end
if tonumber(redis.call('HGET', KEYS[1], 'expires_at')) <= tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'status', 'expired')
  return 'expired_now'
end
if ARGV[1] == 'approved' and redis.call('HGET', KEYS[1], 'call_hash') ~= ARGV[4] then return 'mismatch' end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'decided_at', ARGV[2], 'decided_by', ARGV[3])
if ARGV[1] == 'approved' then
  redis.call('HSET', KEYS[1], 'expires_at', ARGV[5])
  if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'passkey', ARGV[7]) end
  redis.call('PEXPIREAT', KEYS[1], ARGV[6])
end
return 'ok'`);

// KEYS: the record. ARGV: now, the caller's type:id, the hash recomputed from the stored call.
// The one claim that lets the call run: approved to running, only for the caller the call is
// bound to and only while its hash still holds. Returns 'claimed', 'expired_now', 'other_caller',
// 'mismatch', or the status found.
const CLAIM = script(`
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return 'missing' end
if redis.call('HGET', KEYS[1], 'caller_key') ~= ARGV[2] then return 'other_caller' end
if (st == 'pending' or st == 'approved') and tonumber(redis.call('HGET', KEYS[1], 'expires_at')) <= tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'status', 'expired')
  return 'expired_now'
end
if st ~= 'approved' then return st end
if redis.call('HGET', KEYS[1], 'call_hash') ~= ARGV[3] then return 'mismatch' end
redis.call('HSET', KEYS[1], 'status', 'running', 'claimed_at', ARGV[1])
return 'claimed'`);

// KEYS: the record. ARGV: now, the caller's type:id. The caller withdraws a call that has not run:
// pending or approved to cancelled, only by the caller it is bound to. Returns 'cancelled',
// 'expired_now', 'other_caller', or the status found.
const CANCEL = script(`
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return 'missing' end
if redis.call('HGET', KEYS[1], 'caller_key') ~= ARGV[2] then return 'other_caller' end
if st ~= 'pending' and st ~= 'approved' then return st end
if tonumber(redis.call('HGET', KEYS[1], 'expires_at')) <= tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'status', 'expired')
  return 'expired_now'
end
redis.call('HSET', KEYS[1], 'status', 'cancelled', 'decided_at', ARGV[1], 'decided_by', 'the caller')
return 'cancelled'`);

// KEYS: the record. ARGV: the result's JSON, now, kept-until. running to done, once.
const FINISH = script(`
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'done', 'result', ARGV[1], 'finished_at', ARGV[2])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
return 1`);

/** What a claim found: `claimed` lets the call run; anything else says why not. */
export type ClaimOutcome = 'claimed' | 'expired_now' | 'other_caller' | 'mismatch' | 'missing' | ApprovalStatus;
/** What a withdrawal found: `cancelled` withdrew it; anything else says why not. */
export type CancelOutcome = 'cancelled' | 'expired_now' | 'other_caller' | 'missing' | ApprovalStatus;
/** What a decision found: `ok` decided it; anything else says why not. */
export type DecideOutcome = 'ok' | 'expired_now' | 'mismatch' | 'missing' | ApprovalStatus;

/** Where a step came from, for its audit entry. */
export interface ApprovalOrigin {
  source: string;
  requestId: string;
  agent?: AuditAgentRef;
}

/** Approval-gated calls of a project (docs/approvals.md). */
export class ApprovalStore {
  private readonly ctx: StoreContext;
  private readonly keys: ApiKeyStore;
  private readonly audit: AuditLog;

  constructor(ctx: StoreContext, keys: ApiKeyStore, audit: AuditLog) {
    this.ctx = ctx;
    this.keys = keys;
    this.audit = audit;
  }

  /** Stores a call to wait for an approval and records `approval.requested`; `limit` over the project's bound. */
  async create(
    call: { project: string; workspace: string; tool: string; arguments: Record<string, unknown>; caller: ApprovalCaller },
    origin: ApprovalOrigin,
  ): Promise<Approval> {
    const argumentsJson = JSON.stringify(call.arguments);
    if (Buffer.byteLength(argumentsJson) > APPROVAL_TIMING.argumentBytes)
      throw new AccountError(
        'invalid',
        `This call's arguments are more than the ${APPROVAL_TIMING.argumentBytes} bytes an admin is shown to approve; send smaller arguments.`,
      );
    const now = this.ctx.now();
    const id = newId('apr');
    const callHash = approvalCallHash(call);
    const expiresAt = now + APPROVAL_TIMING.decideWithinMs;
    const fields: Record<string, string> = {
      id,
      project: call.project,
      workspace: call.workspace,
      tool: call.tool,
      arguments: argumentsJson,
      caller: JSON.stringify(call.caller),
      caller_key: approvalCallerKey(call.caller),
      call_hash: callHash,
      status: 'pending',
      created_at: String(now),
      expires_at: String(expiresAt),
    };
    const outcome = await runScript(
      this.ctx.redis,
      CREATE,
      [K.approval(call.project, id), K.projectApprovals(call.project)],
      [id, now, expiresAt + APPROVAL_TIMING.keptMs, APPROVAL_TIMING.maxOpen, now - APPROVAL_LIFETIME_MS, ...Object.entries(fields).flat()],
    );
    if (outcome === 'limit')
      throw new AccountError(
        'limit',
        `Project ${call.project} has ${APPROVAL_TIMING.maxOpen} calls awaiting approval; ask its admins to decide them.`,
      );
    await this.record(call.workspace, call.caller, 'approval.requested', id, origin, {
      project: call.project,
      tool: call.tool,
      call_hash: callHash,
    });
    return (await this.get(call.project, id))!;
  }

  async get(project: string, id: string): Promise<Approval | null> {
    if (!/^apr_[A-Za-z0-9_-]{1,64}$/.test(id)) return null;
    const h = await this.ctx.redis.hgetall(K.approval(project, id));
    if (!h['id']) return null;
    return {
      id: h['id'],
      project: h['project'] ?? project,
      workspace: h['workspace'] ?? '',
      tool: h['tool'] ?? '',
      arguments: JSON.parse(h['arguments'] ?? '{}') as Record<string, unknown>,
      caller: JSON.parse(h['caller'] ?? '{}') as ApprovalCaller,
      callHash: h['call_hash'] ?? '',
      status: (h['status'] ?? 'pending') as ApprovalStatus,
      createdAt: Number(h['created_at']),
      expiresAt: Number(h['expires_at']),
      decidedBy: h['decided_by'] ?? null,
      decidedAt: h['decided_at'] ? Number(h['decided_at']) : null,
      result: h['result'] ? (JSON.parse(h['result']) as Record<string, unknown>) : null,
      passkey: h['passkey'] ? (JSON.parse(h['passkey']) as PasskeyApproval) : null,
    };
  }

  /** The project's approvals still kept, newest first (bounded by APPROVAL_TIMING.maxOpen). */
  async list(project: string): Promise<Approval[]> {
    const ids = await this.ctx.redis.zrevrange(K.projectApprovals(project), 0, APPROVAL_TIMING.maxOpen - 1);
    const found = await Promise.all(ids.map((id) => this.get(project, id)));
    return found.filter((a): a is Approval => a !== null);
  }

  /** Approves (of `callHash`, the hash the admin was shown) or denies a pending call: one atomic move. */
  async decide(
    project: string,
    id: string,
    decision: { approve: boolean; callHash: string; by: string; passkey?: PasskeyApproval },
  ): Promise<DecideOutcome> {
    const now = this.ctx.now();
    const until = now + APPROVAL_TIMING.collectWithinMs;
    const proof = decision.passkey ? JSON.stringify(decision.passkey) : '';
    const outcome = await runScript(
      this.ctx.redis,
      DECIDE,
      [K.approval(project, id)],
      [decision.approve ? 'approved' : 'denied', now, decision.by, decision.callHash, until, until + APPROVAL_TIMING.keptMs, proof],
    );
    return String(outcome) as DecideOutcome;
  }

  /** The one claim that lets an approved call run, by the caller it is bound to (see CLAIM). */
  async claim(
    project: string,
    id: string,
    caller: Pick<ApprovalCaller, 'type' | 'id' | 'clientId'>,
    callHash: string,
  ): Promise<ClaimOutcome> {
    const outcome = await runScript(
      this.ctx.redis,
      CLAIM,
      [K.approval(project, id)],
      [this.ctx.now(), approvalCallerKey(caller), callHash],
    );
    return String(outcome) as ClaimOutcome;
  }

  /** The caller withdraws a call that has not run (see CANCEL). */
  async cancel(project: string, id: string, caller: Pick<ApprovalCaller, 'type' | 'id' | 'clientId'>): Promise<CancelOutcome> {
    const outcome = await runScript(this.ctx.redis, CANCEL, [K.approval(project, id)], [this.ctx.now(), approvalCallerKey(caller)]);
    return String(outcome) as CancelOutcome;
  }

  /** Stores the run's answer (running to done); false when the record was not running. */
  async finish(project: string, id: string, result: Record<string, unknown>): Promise<boolean> {
    const now = this.ctx.now();
    const done = await runScript(
      this.ctx.redis,
      FINISH,
      [K.approval(project, id)],
      [JSON.stringify(result), now, now + APPROVAL_TIMING.keptMs],
    );
    return Number(done) === 1;
  }

  /** Records a step of an approval the caller took (`approval.ran`, `approval.expired`). */
  async noteStep(
    approval: Approval,
    action: 'approval.ran' | 'approval.expired' | 'approval.cancelled',
    origin: ApprovalOrigin,
    detail: Record<string, string> = {},
  ): Promise<void> {
    await this.record(approval.workspace, approval.caller, action, approval.id, origin, {
      project: approval.project,
      tool: approval.tool,
      ...detail,
    });
  }

  private async record(
    workspace: string,
    caller: ApprovalCaller,
    action: 'approval.requested' | 'approval.ran' | 'approval.expired' | 'approval.cancelled',
    id: string,
    origin: ApprovalOrigin,
    detail: Record<string, string>,
  ): Promise<void> {
    const actor =
      caller.type === 'user' ? caller.label : caller.type === 'bot' ? `service_account:${caller.id}` : await this.keyActor(caller.id);
    const type = caller.type === 'user' ? 'user' : caller.type === 'bot' ? 'service_account' : 'key';
    const principal: AuditPrincipal = { type, id: caller.id, label: caller.type === 'bot' ? caller.label : actor };
    const agent = origin.agent ?? (caller.type === 'key' ? { keyId: caller.id } : undefined);
    await this.audit.record({
      workspace,
      actor,
      principal,
      ...(agent ? { agent } : {}),
      action,
      target: `approval:${id} (${detail['tool'] ?? ''})`,
      source: origin.source,
      requestId: origin.requestId,
      detail,
    });
  }

  private async keyActor(keyId: string): Promise<string> {
    const key = await this.keys.getById(keyId);
    return key ? `key:${key.prefix}` : `key:${keyId}`;
  }
}
