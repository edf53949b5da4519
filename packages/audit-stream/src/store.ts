/**
 * The exporter's state in Redis (docs/redis-schema.md "Audit streaming"): per exporter name, one
 * lease (which replica exports) and one hash of cursors (per workspace, the last entry the receiver
 * accepted and its ordinal in the stream). Both share the name's hash tag, so the script that moves
 * a cursor only while its caller holds the lease runs on Redis Cluster.
 */
import { auditEntryOf, K, scanKeys, type AuditEntry, type Redis } from '@svc/accounts';
import { holdLease, releaseLease, runScript, script } from '@svc/limits';

const STREAM_KEYS = {
  lease: (name: string) => `svc:audit-export:{${name}}:lease`,
  cursors: (name: string) => `svc:audit-export:{${name}}:cursors`,
};

/** Where an exporter stands in one workspace's log. */
export interface Cursor {
  /** The last stream id the receiver accepted. */
  id: string;
  /** Its ordinal: 1 for the first entry ever added to the stream (XINFO STREAM entries-added). */
  ordinal: number;
}

/** KEYS: lease, cursors. ARGV: holder token, lease ms, then workspace and cursor pairs. */
const COMMIT = script(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
return 1`);

/** One batch read from a log, with what is needed to see a gap. */
export interface LogRead {
  entries: { entry: AuditEntry; ordinal: number }[];
  /** Entries trimmed between the cursor and the oldest kept one, if any. */
  gap: { after: string; before: string; count: number | null } | null;
}

export function exporterStore(redis: Redis, name: string) {
  const lease = STREAM_KEYS.lease(name);
  const cursors = STREAM_KEYS.cursors(name);
  return {
    /** Takes the lease if free (or renews it if ours): whether we hold it now. */
    async hold(token: string, ms: number): Promise<boolean> {
      return holdLease(redis, lease, token, ms);
    },
    /** Gives the lease up if ours, so another replica need not wait for it to end. */
    async release(token: string): Promise<void> {
      await releaseLease(redis, lease, token);
    },
    /** Moves one workspace's cursor, only while `token` holds the lease (false: the lease was lost). */
    async commit(token: string, ms: number, workspace: string, c: Cursor): Promise<boolean> {
      return (await runScript(redis, COMMIT, [lease, cursors], [token, ms, workspace, `${c.id} ${c.ordinal}`])) === 1;
    },
    async cursor(workspace: string): Promise<Cursor | null> {
      return parseCursor(await redis.hget(cursors, workspace));
    },
    async cursors(): Promise<Record<string, Cursor>> {
      const out: Record<string, Cursor> = {};
      for (const [ws, v] of Object.entries(await redis.hgetall(cursors))) {
        const c = parseCursor(v);
        if (c) out[ws] = c;
      }
      return out;
    },
  };
}

function parseCursor(v: string | null | undefined): Cursor | null {
  const m = v ? /^(\d+-\d+) (\d+)$/.exec(v) : null;
  return m ? { id: m[1]!, ordinal: Number(m[2]) } : null;
}

/** The workspaces that have an audit log: SCAN of `svc:audit:{*}` (the action indexes end otherwise). */
export async function auditWorkspaces(redis: Redis): Promise<string[]> {
  const found = new Set<string>();
  for await (const keys of scanKeys(redis, K.auditLog('*'))) {
    for (const key of keys) {
      const m = /^svc:audit:\{(.+)\}$/.exec(key);
      if (m) found.add(m[1]!);
    }
  }
  return [...found].sort();
}

/**
 * Up to `count` entries after the cursor, read in one MULTI with XINFO STREAM so that the stream's
 * count of entries ever added, its length and its first id belong to the same moment: the oldest
 * kept entry's ordinal is `entries-added - length + 1`, and entries between the cursor and it were
 * trimmed (docs/audit.md "Streaming": what is reported lost).
 */
export async function readAfter(redis: Redis, workspace: string, cursor: Cursor | null, count: number): Promise<LogRead> {
  const key = K.auditLog(workspace);
  const replies = await redis
    .multi()
    .xinfo('STREAM', key)
    .xrange(key, cursor ? `(${cursor.id}` : '-', '+', 'COUNT', count)
    .exec();
  const [infoReply, rangeReply] = replies ?? [];
  // The log is gone (no such key): nothing to read.
  if (!infoReply || infoReply[0] || !rangeReply || rangeReply[0]) return { entries: [], gap: null };
  const info = fieldsOf(infoReply[1] as unknown[]);
  const length = Number(info['length']);
  const added = Number(info['entries-added']);
  const firstEntry = info['first-entry'] as [string, string[]] | null;
  const range = rangeReply[1] as [string, string[]][];
  const firstOrdinal = added - length + 1;
  let gap: LogRead['gap'] = null;
  let next = cursor ? cursor.ordinal + 1 : firstOrdinal;
  if (cursor && firstEntry && compareIds(firstEntry[0], cursor.id) > 0 && firstOrdinal !== cursor.ordinal + 1) {
    const lost = firstOrdinal - cursor.ordinal - 1;
    gap = { after: cursor.id, before: firstEntry[0], count: lost > 0 ? lost : null };
    next = firstOrdinal;
  }
  return { entries: range.map(([id, fields], i) => ({ entry: auditEntryOf(workspace, id, fields), ordinal: next + i })), gap };
}

/** XINFO STREAM's flat reply as an object. */
function fieldsOf(flat: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[String(flat[i])] = flat[i + 1];
  return out;
}

/** Orders two stream ids (`<ms>-<seq>`, each up to 64 bits). */
function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  return am === bm ? Number(as - bs) : am < bm ? -1 : 1;
}
