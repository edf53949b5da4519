/**
 * Appending to a workspace's audit chain (docs/audit.md "Chain"). An entry is hashed with its id,
 * seq and prev (audit-chain.ts), so it is linked before it is sent, and APPEND writes it only if
 * the chain still ends where it was linked: one script, so two writers never fork a chain. A writer
 * whose link went stale (another process appended first) learns the new end from the refusal and
 * links again.
 *
 * A chain is written one link after another, so this process's appends to one workspace are queued
 * and sent in batches (group commit): what arrived while a batch was out goes in the next, up to
 * AUDIT_APPEND_BATCH entries, so a burst costs one round trip per batch, not one per entry.
 */
import { runScript, script } from '@svc/limits';
import type { AuditAction } from './audit-actions.ts';
import { auditHash, type AuditLink } from './audit-chain.ts';
import type { AuditParties } from './audit-parties.ts';
import type { StoreContext } from './context.ts';
import { K } from './keys.ts';

/**
 * How many times one batch is offered (docs/audit.md "Chain"): each try lost to another process's
 * append learns the new end. This process's appends to one workspace go in order, so only other
 * processes race a batch, and each of those beats it once per append of theirs at most.
 */
const AUDIT_APPEND_ATTEMPTS = 100;
/** The most entries one APPEND writes (a burst's batches; about 100 XADDs, a fraction of a millisecond in Redis). */
const AUDIT_APPEND_BATCH = 100;

/** An entry before it is linked: every field it is hashed with but its id, seq and prev. */
export interface EntryContent extends AuditParties {
  at: number;
  workspace: string;
  actor: string;
  action: AuditAction;
  target: string;
  source: string;
  requestId: string;
  detail: Record<string, string>;
}

/** An entry linked into its chain: its content, its stream id and its link. */
export type LinkedEntry = EntryContent & AuditLink & { id: string };

/** The trims of an append (the plan's retention): the oldest stream id kept (ms) and the most entries. */
export interface Trim {
  minId: number;
  cap: number;
}

/**
 * Appends a batch of entries if the chain still ends where the first was linked, and trims, in
 * one script. It ends where it was linked when the chain's head (seq and hash of its last entry)
 * and the log's last id are those the writer linked to; else nothing is written. Either way the
 * answer is the chain's end after it (head, last id) and Redis's clock, from which the next batch
 * is linked. The trims: the stream to the plan's entry cap and retention (Redis's approximate trims,
 * whole internal nodes), each action's index to the oldest id left in the stream.
 * KEYS: the log, the chain's head, then each entry's action index. ARGV: oldest id kept (ms), entry
 * cap, the end linked to (seq, hash, the log's last id), then per entry its id, seq, hash, the
 * number of its fields and its fields.
 */
const APPEND = script(`
local head = redis.call('HMGET', KEYS[2], 'seq', 'hash')
local last = '0-0'
if redis.call('EXISTS', KEYS[1]) == 1 then
  local info = redis.call('XINFO', 'STREAM', KEYS[1])
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then last = info[i + 1] end
  end
end
local seq, hash = head[1] or '0', head[2] or ''
local now = redis.call('TIME')
if seq ~= ARGV[3] or hash ~= ARGV[4] or last ~= ARGV[5] or #KEYS == 2 then
  return {0, seq, hash, last, now[1], now[2]}
end
local at, ids = 6, {}
for e = 1, #KEYS - 2 do
  local n = tonumber(ARGV[at + 3])
  local fields = {}
  for i = 1, n do fields[i] = ARGV[at + 3 + i] end
  ids[e] = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], ARGV[at], unpack(fields))
  seq, hash = ARGV[at + 1], ARGV[at + 2]
  at = at + 4 + n
end
redis.call('XTRIM', KEYS[1], 'MINID', '~', ARGV[1])
local first = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
local floor = first[1] and first[1][1] or ids[#ids]
for e = 1, #ids do redis.call('XADD', KEYS[e + 2], 'MINID', '~', floor, ids[e], 'a', '') end
redis.call('HSET', KEYS[2], 'seq', seq, 'hash', hash)
return {1, seq, hash, ids[#ids], now[1], now[2]}`);

/** Where a chain ends, as APPEND answered: its head, the log's last id, and Redis's clock (ms). */
interface ChainEnd {
  seq: number;
  hash: string;
  last: string;
  now: number;
}

interface Waiting {
  content: EntryContent;
  trim: Trim;
  done: (err?: unknown) => void;
}

/** The appender of one account model (one per AuditLog): `append` resolves once the entry is in its chain. */
export function chainAppender(ctx: StoreContext): (content: EntryContent, trim: Trim) => Promise<void> {
  /** Per workspace, the entries waiting for the batch in flight; present while a drain runs. */
  const queues = new Map<string, Waiting[]>();

  /** Sends a workspace's waiting entries, a batch at a time, until none waits. */
  async function drain(workspace: string, queue: Waiting[]): Promise<void> {
    let end: ChainEnd | null = null;
    while (queue.length > 0) {
      const batch = queue.splice(0, AUDIT_APPEND_BATCH);
      try {
        end = await appendBatch(batch, end);
        for (const w of batch) w.done();
      } catch (err) {
        end = null;
        for (const w of batch) w.done(err);
      }
    }
    queues.delete(workspace);
  }

  /** Offers the batch, linked to the end last learnt (none: the first try only learns it), until it is appended. */
  async function appendBatch(batch: Waiting[], known: ChainEnd | null): Promise<ChainEnd> {
    const workspace = batch[0]!.content.workspace;
    const trim = batch.at(-1)!.trim;
    let end = known;
    for (let attempt = 0; attempt <= AUDIT_APPEND_ATTEMPTS; attempt++) {
      const entries = end ? linkAll(batch, end) : [];
      const keys = [K.auditLog(workspace), K.auditChain(workspace), ...entries.map((e) => K.auditByAction(workspace, e.action))];
      const args = [String(trim.minId), String(trim.cap), end ? String(end.seq) : '-', end?.hash ?? '', end?.last ?? ''];
      for (const e of entries) {
        const fields = streamFields(e);
        args.push(e.id, String(e.seq), e.hash, String(fields.length), ...fields);
      }
      // A try without entries writes nothing: no replica needs to confirm it.
      const reply = (await runScript(entries.length > 0 ? ctx.redis : ctx.unconfirmed, APPEND, keys, args)) as [number, ...string[]];
      const [appended, seq, hash, last, sec, usec] = reply;
      end = { seq: Number(seq), hash: hash ?? '', last: last ?? '0-0', now: Number(sec) * 1000 + Math.floor(Number(usec) / 1000) };
      if (appended === 1) return end;
    }
    throw new Error(
      `audit log of ${workspace}: not appended after ${AUDIT_APPEND_ATTEMPTS} tries, other writers' appends came first each time`,
    );
  }

  return (content, trim) =>
    new Promise<void>((resolve, reject) => {
      const waiting: Waiting = { content, trim, done: (err) => (err === undefined ? resolve() : reject(err)) };
      const queue = queues.get(content.workspace);
      if (queue) return void queue.push(waiting);
      const fresh = [waiting];
      queues.set(content.workspace, fresh);
      void drain(content.workspace, fresh);
    });
}

/** The batch's entries linked one after another from `end`: each one's id, seq, prev and hash. */
function linkAll(batch: Waiting[], end: ChainEnd): LinkedEntry[] {
  const linked: LinkedEntry[] = [];
  let { seq, hash, last } = end;
  for (const { content } of batch) {
    const body = { id: nextId(last, end.now), ...content, seq: seq + 1, prev: seq === 0 ? null : hash };
    const entry = { ...body, hash: auditHash(body) };
    linked.push(entry);
    ({ seq, hash, id: last } = entry);
  }
  return linked;
}

/** The id XADD's `*` would give after `last` at `now` (ms): now's, or the next in last's millisecond. */
function nextId(last: string, now: number): string {
  const [ms = '0', seq = '0'] = last.split('-');
  return BigInt(now) > BigInt(ms) ? `${now}-0` : `${ms}-${BigInt(seq) + 1n}`;
}

/** An entry as the stream keeps it (auditEntryOf reads it back): the workspace is the key's, the id the entry's. */
function streamFields(e: LinkedEntry): string[] {
  return [
    ...['at', String(e.at), 'actor', e.actor, 'action', e.action, 'target', e.target, 'source', e.source, 'request', e.requestId],
    ...['detail', JSON.stringify(e.detail), 'principal', JSON.stringify(e.principal), 'agent', JSON.stringify(e.agent)],
    ...['chain', JSON.stringify(e.chain), 'seq', String(e.seq), 'prev', e.prev ?? '', 'hash', e.hash],
  ];
}
