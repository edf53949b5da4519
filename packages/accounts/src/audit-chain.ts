/**
 * The audit log's hash chain (docs/audit.md "Chain"), after the construction of the MCP draft
 * "Tamper-Evident Audit Record Contract" (SEP-3004, §2.4 and §2.6): each entry of a workspace's log
 * carries `seq` (1, 2, 3, ... per workspace), `prev` (the `hash` of the entry before it; null for the
 * first) and `hash`, the SHA-256 of the entry's canonical JSON (RFC 8785) without `hash`. Changing,
 * dropping, reordering or inserting an entry breaks the chain at or after it.
 *
 * Pure (no Redis): the writer (audit.ts) links entries with it, and the verifier below runs over an
 * export anywhere (`svc-admin audit verify`, `svc audit verify`), with nothing of svc but this file.
 */
import { createHash } from 'node:crypto';

/** The fields the chain adds to an entry. */
export interface AuditLink {
  /** The entry's place in its workspace's log: 1 for the first, one more for each after it. */
  seq: number;
  /** The `hash` of the entry before (seq - 1); null for seq 1, the chain's start. */
  prev: string | null;
  /** SHA-256 (lowercase hex) of the entry's canonical JSON without `hash` (auditHash). */
  hash: string;
}

/** The export's closing line's field (docs/audit.md "Export"); the same name as AUDIT_EXPORT_END. */
const EXPORT_END = 'complete';
/** How deep a value may nest: entries are two levels deep, so deeper input is hostile (SEP-3004 "Security Implications"). */
const MAX_DEPTH = 16;
const HASH = /^[0-9a-f]{64}$/;

/**
 * RFC 8785 (JSON Canonicalization Scheme): no whitespace, object members sorted by their names'
 * UTF-16 code units (§3.2.3; JavaScript's default string order), strings and numbers as ECMAScript's
 * JSON.stringify writes them (§3.2.2.2, §3.2.2.3). Members whose value is undefined are left out,
 * as JSON.stringify leaves them out.
 */
export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) throw new TypeError(`nested deeper than ${MAX_DEPTH} levels`);
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    // RFC 8785 §3.2.2.3: NaN and Infinity have no JSON form.
    if (!Number.isFinite(value)) throw new TypeError('a number that is not finite');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v, depth + 1)).join(',')}]`;
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const names = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${names.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k], depth + 1)}`).join(',')}}`;
  }
  throw new TypeError(`a ${typeof value}, which JSON cannot hold`);
}

/** The `hash` of an entry: SHA-256 of the UTF-8 of its canonical JSON, every field but `hash` itself. */
export function auditHash(entry: Record<string, unknown>): string {
  const { hash: _hash, ...body } = entry;
  return createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
}

/** What the verifier found: the export holds an unbroken chain, or where it first breaks. */
export type AuditVerdict =
  | {
      ok: true;
      entries: number;
      workspace: string | null;
      /** The first entry's seq and prev: the prev is taken as given, the export's anchor (docs/audit.md "Retention"). */
      first: { seq: number; prev: string | null } | null;
      /** The last entry's seq and hash: give the hash as the next export's --anchor to join the two. */
      last: { seq: number; hash: string } | null;
    }
  | {
      ok: false;
      /** The line (1-based) where the chain first breaks, with the entry's seq and id when it has them. */
      line: number;
      seq: number | null;
      id: string | null;
      problem: string;
    };

/** What the verifier is told besides the export. */
export interface AuditVerifyOptions {
  /** The `prev` the first entry must carry: the last hash of an earlier export (or of an earlier verify). */
  anchor?: string;
}

type Entry = Record<string, unknown> & { seq: number; prev: string | null; hash: string };

/**
 * Checks an export line by line (SEP-3004 §2.6), holding one entry at a time, so an export of any
 * size is verified in constant memory. Feed `line()` every line, then read `end()`.
 */
export class AuditChainVerifier {
  private readonly anchor: string | undefined;
  private lineNo = 0;
  private count = 0;
  private workspace: string | null = null;
  private first: { seq: number; prev: string | null } | null = null;
  private last: Entry | null = null;
  private closed: { entries: unknown } | null = null;
  private broken: Extract<AuditVerdict, { ok: false }> | null = null;

  constructor(options: AuditVerifyOptions = {}) {
    if (options.anchor !== undefined && !HASH.test(options.anchor))
      throw new TypeError('the anchor must be a hash: 64 lowercase hexadecimal digits');
    this.anchor = options.anchor;
  }

  /** One line of the export (without its newline). Empty lines are skipped. */
  line(text: string): void {
    this.lineNo++;
    if (this.broken || text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return this.fail(null, 'the line is not JSON: the export was damaged or edited');
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) return this.fail(null, 'the line is not a JSON object');
    const o = value as Record<string, unknown>;
    if (this.closed) return this.fail(o, 'a line follows the closing {"complete":true,...} line: something was added after the end');
    if (o[EXPORT_END] === true) {
      this.closed = { entries: o['entries'] };
      return;
    }
    this.entry(o);
  }

  /** The verdict, once every line was given. */
  end(): AuditVerdict {
    if (this.broken) return this.broken;
    if (!this.closed)
      return this.failAt(
        this.lineNo + 1,
        null,
        null,
        'the export ends without its closing {"complete":true,...} line: it was cut; export again',
      );
    if (this.closed.entries !== this.count)
      return this.failAt(
        this.lineNo,
        null,
        null,
        `the closing line counts ${String(this.closed.entries)} entries but the export holds ${this.count}: entries were dropped or added`,
      );
    const last = this.last ? { seq: this.last.seq, hash: this.last.hash } : null;
    return { ok: true, entries: this.count, workspace: this.workspace, first: this.first, last };
  }

  private entry(o: Record<string, unknown>): void {
    const seq = o['seq'];
    const prev = o['prev'];
    const hash = o['hash'];
    if (!Number.isSafeInteger(seq) || (seq as number) < 1 || (prev !== null && !isHash(prev)) || !isHash(hash))
      return this.fail(
        o,
        'the entry carries no chain (seq, prev and hash): it was written before the chain began, or its chain fields were removed or damaged',
      );
    const e = o as Entry;
    let computed: string;
    try {
      computed = auditHash(e);
    } catch (err) {
      return this.fail(e, `the entry cannot be canonicalized (${(err as Error).message})`);
    }
    if (computed !== e.hash) return this.fail(e, 'the entry was altered: its content does not hash to its hash');
    if ((e.seq === 1) !== (e.prev === null))
      return this.fail(e, e.seq === 1 ? 'seq 1 starts the chain, yet it names an entry before it' : 'only seq 1 may have no prev');
    if (typeof e['workspace'] === 'string') {
      if (this.workspace !== null && e['workspace'] !== this.workspace)
        return this.fail(e, `the entry belongs to workspace ${e['workspace']}, the export's earlier entries to ${this.workspace}`);
      this.workspace = e['workspace'];
    }
    this.link(e);
  }

  /** The entry against the one before it: one seq more, and its prev is that entry's hash. */
  private link(e: Entry): void {
    const before = this.last;
    if (!before) {
      if (this.anchor !== undefined && e.prev !== this.anchor)
        return this.fail(e, `the first entry's prev is not the anchor ${this.anchor}: the export does not continue from it`);
      this.first = { seq: e.seq, prev: e.prev };
    } else if (e.seq <= before.seq) {
      return this.fail(e, `the entry is out of order: seq ${e.seq} comes after seq ${before.seq}`);
    } else if (e.seq !== before.seq + 1) {
      const missing = e.seq === before.seq + 2 ? `seq ${before.seq + 1} is` : `seq ${before.seq + 1} to ${e.seq - 1} are`;
      return this.fail(e, `the export is not complete: ${missing} missing before this entry`);
    } else if (e.prev !== before.hash) {
      return this.fail(
        e,
        `the entry does not follow seq ${before.seq}: its prev is not that entry's hash (an entry was replaced or inserted)`,
      );
    }
    this.last = e;
    this.count++;
  }

  private fail(o: Record<string, unknown> | null, problem: string): void {
    const seq = o && Number.isSafeInteger(o['seq']) ? (o['seq'] as number) : null;
    const id = o && typeof o['id'] === 'string' ? o['id'] : null;
    this.broken = this.failAt(this.lineNo, seq, id, problem);
  }

  private failAt(line: number, seq: number | null, id: string | null, problem: string): Extract<AuditVerdict, { ok: false }> {
    return { ok: false, line, seq, id, problem };
  }
}

function isHash(v: unknown): v is string {
  return typeof v === 'string' && HASH.test(v);
}

/** Verifies an export given as lines (a file read line by line, or a string split at its newlines). */
export async function verifyAuditExport(
  lines: AsyncIterable<string> | Iterable<string>,
  options: AuditVerifyOptions = {},
): Promise<AuditVerdict> {
  const verifier = new AuditChainVerifier(options);
  for await (const line of lines) verifier.line(line);
  return verifier.end();
}

/** The verdict in words: one line for a sound export, the first broken entry for a broken one. */
export function describeVerdict(v: AuditVerdict): string {
  if (!v.ok) {
    const which = [v.seq !== null ? `seq ${v.seq}` : null, v.id !== null ? `id ${v.id}` : null].filter(Boolean).join(', ');
    return `audit export BROKEN at line ${v.line}${which ? ` (${which})` : ''}: ${v.problem}`;
  }
  if (!v.first || !v.last) return 'audit export verified: no entries (nothing to check but the closing line)';
  const of = v.workspace ? ` of workspace ${v.workspace}` : '';
  const anchor =
    v.first.prev === null
      ? 'from the start of the chain'
      : `anchored by the first entry's prev ${v.first.prev} (the entries before seq ${v.first.seq} are not in this export)`;
  return `audit export verified: ${v.entries} entries${of}, seq ${v.first.seq} to ${v.last.seq}, complete and unaltered, ${anchor}; last hash ${v.last.hash}`;
}
