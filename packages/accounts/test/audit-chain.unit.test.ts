/**
 * The audit chain's verifier (docs/audit.md "Chain", "Verifying an export"): an export as svc writes
 * it verifies, from the chain's start or from any entry (retention: the first prev anchors it); any
 * single edit of it (a field changed, added or removed, an entry dropped, moved or inserted, the
 * closing line changed or cut) is found, at the entry where the chain breaks. The canonical form is
 * RFC 8785's, checked against the RFC's examples and the SEP-3004 draft's known answer.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { AuditChainVerifier, auditHash, canonicalJson, describeVerdict, verifyAuditExport } from '../src/audit-chain.ts';

test('the canonical form is RFC 8785: members sorted by UTF-16 code units, ECMAScript numbers and strings, no whitespace', () => {
  // RFC 8785 §3.2.3, the sorting example.
  const sorting = {
    '\u20ac': 'Euro Sign',
    '\r': 'Carriage Return',
    '\ufb33': 'Hebrew Letter Dalet With Dagesh',
    '1': 'One',
    '\ud83d\ude00': 'Emoji: Grinning Face',
    '\u0080': 'Control',
    '\u00f6': 'Latin Small Letter O With Diaeresis',
  };
  assert.deepEqual(
    canonicalJson(sorting).match(/"([^"]*)":/g),
    ['"\\r":', '"1":', '"\u0080":', '"\u00f6":', '"\u20ac":', '"\ud83d\ude00":', '"\ufb33":'],
    'the names in the order of RFC 8785 (a JavaScript object would put "1" first)',
  );
  // RFC 8785 §3.2.2.3 and appendix B: numbers as ECMAScript writes them.
  const numbers: [number, string][] = [
    [0, '0'],
    [-0, '0'],
    [1e21, '1e+21'],
    [1e-7, '1e-7'],
    [0.000001, '0.000001'],
    [4.5, '4.5'],
    [2e-3, '0.002'],
    [333333333.3333333, '333333333.3333333'],
    [9007199254740991, '9007199254740991'],
  ];
  for (const [n, text] of numbers) assert.equal(canonicalJson(n), text);
  assert.equal(canonicalJson({ b: [true, null, 'x\ny'], a: { d: 1, c: undefined } }), '{"a":{"d":1},"b":[true,null,"x\\ny"]}');
  assert.throws(() => canonicalJson(Number.NaN));
  assert.throws(() => canonicalJson({ a: Infinity }));
  let deep: unknown = 'x';
  for (let i = 0; i < 40; i++) deep = [deep];
  assert.throws(() => canonicalJson(deep), /nested deeper/, 'a verifier bounds how deep it reads (SEP-3004 "Security Implications")');
});

test("the draft's known answer: the same canonical bytes and SHA-256 as SEP-3004's two-extension record", () => {
  const record = {
    event_id: '99999999-9999-9999-9999-999999999999',
    event_type: 'tool_call',
    occurred_at: '2026-06-06T12:00:00.000Z',
    outcome: 'deferred',
    previous_hash: null,
    principal_id: 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa',
    tool_name: 'export',
    extensions: {
      'runtime-security': {
        severity: 'high',
        quarantine_decision: 'quarantine',
        policy_id: 'example.org/runtime-drift@3',
        evidence_hash: 'sha256:b2c547e2c8f17eafc72ef5c2d4d7b6b4d0f7437ab52bae573a9af14ff5e2d9be',
        drift_status: 'confirmed',
      },
      'caller-governance': {
        session_id: '55555555-5555-5555-5555-555555555555',
        purpose_declared: 'reconcile June invoices',
        invoked_by_principal_id: null,
        flagged: false,
      },
    },
  };
  const preimage =
    '{"event_id":"99999999-9999-9999-9999-999999999999","event_type":"tool_call","extensions":{"caller-governance":{"flagged":false,"invoked_by_principal_id":null,"purpose_declared":"reconcile June invoices","session_id":"55555555-5555-5555-5555-555555555555"},"runtime-security":{"drift_status":"confirmed","evidence_hash":"sha256:b2c547e2c8f17eafc72ef5c2d4d7b6b4d0f7437ab52bae573a9af14ff5e2d9be","policy_id":"example.org/runtime-drift@3","quarantine_decision":"quarantine","severity":"high"}},"occurred_at":"2026-06-06T12:00:00.000Z","outcome":"deferred","previous_hash":null,"principal_id":"aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa","tool_name":"export"}';
  assert.equal(canonicalJson(record), preimage);
  assert.equal(createHash('sha256').update(preimage).digest('hex'), 'f733fed9cc757165f810b778e4baba1f51a45504988e937707aaab4361b2f064');
  assert.equal(auditHash({ ...record, hash: 'ignored' }), 'f733fed9cc757165f810b778e4baba1f51a45504988e937707aaab4361b2f064');
});

type Entry = Record<string, unknown>;

/** Text with what JSON and the canonical form treat apart: quotes, escapes, controls, non-ASCII, surrogates. */
const text = fc.string({
  unit: fc.constantFrom('a', 'Z', ' ', '"', '\\', '\n', '\u0000', '\u00e9', '\u2028', '\ud83d\ude00', '\ud800', '\ufeff'),
  maxLength: 12,
});
const content = fc.record({
  at: fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }),
  actor: fc.oneof(fc.emailAddress(), text),
  action: fc.constantFrom('key.created', 'key.revoked', 'member.added', 'signin.failed'),
  target: text,
  source: fc.ipV4(),
  requestId: fc.uuid(),
  detail: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), text, { maxKeys: 3 }),
  principal: fc.record({ type: fc.constantFrom('user', 'key', 'svc'), id: text, label: text }),
  agent: fc.record({
    type: fc.constantFrom('oauth_client', 'api_key', 'web'),
    id: text,
    name: text,
    verified: fc.boolean(),
    key: fc.option(text, { nil: null }),
  }),
  chain: fc.array(fc.record({ sub: text }), { maxLength: 2 }),
});

/** An export as svc writes one: a run of chained entries (from seq 1, or from later with the prev of a trimmed entry), then the closing line. */
const exports = fc
  .record({
    workspace: fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/),
    start: fc.oneof(fc.constant(1), fc.integer({ min: 2, max: 1_000_000 })),
    anchor: fc.stringMatching(/^[0-9a-f]{64}$/),
    contents: fc.array(content, { minLength: 0, maxLength: 12 }),
  })
  .map(({ workspace, start, anchor, contents }) => {
    const entries: Entry[] = [];
    let prev: string | null = start === 1 ? null : anchor;
    let ms = 1_800_000_000_000;
    for (const [i, c] of contents.entries()) {
      const body = { id: `${ms++}-0`, workspace, ...c, seq: start + i, prev };
      const hash = auditHash(body);
      entries.push({ ...body, hash });
      prev = hash;
    }
    return entries;
  });

const linesOf = (entries: Entry[], count = entries.length) => [
  ...entries.map((e) => JSON.stringify(e)),
  JSON.stringify({ complete: true, entries: count }),
];

const verify = (lines: string[], options = {}) => {
  const v = new AuditChainVerifier(options);
  for (const line of lines) v.line(line);
  return v.end();
};

test('an export as written verifies, from the chain start or from mid-chain (its first prev taken as given)', () => {
  fc.assert(
    fc.property(exports, (entries) => {
      const v = verify(linesOf(entries));
      assert.equal(v.ok, true, JSON.stringify(v));
      if (!v.ok) return;
      assert.equal(v.entries, entries.length);
      if (entries.length === 0) return assert.equal(v.first, null);
      assert.deepEqual(v.first, { seq: entries[0]!['seq'], prev: entries[0]!['prev'] });
      assert.deepEqual(v.last, { seq: entries.at(-1)!['seq'], hash: entries.at(-1)!['hash'] });
      // An anchor (an earlier export's last hash) must be the first prev; from the chain's start none is.
      const prev = entries[0]!['prev'] as string | null;
      if (prev !== null) assert.equal(verify(linesOf(entries), { anchor: prev }).ok, true);
      assert.equal(verify(linesOf(entries), { anchor: 'f'.repeat(64) }).ok, prev === 'f'.repeat(64));
    }),
  );
});

/** One edit of an export's lines: what a forger, a lossy copy or a careless hand might do. */
type Edit = (entries: Entry[], pick: (n: number) => number) => string[] | null;

/** A value different from `v`, of a JSON type. */
function another(v: unknown, pick: (n: number) => number): unknown {
  if (typeof v === 'string') return pick(2) === 0 ? `${v}x` : v.slice(0, -1) === v ? 'x' : v.slice(0, -1);
  if (typeof v === 'number') return v + 1 + pick(3);
  if (typeof v === 'boolean') return !v;
  if (v === null) return 'x';
  return pick(2) === 0 ? null : 'x';
}

/** Every place of an entry a value sits (top-level fields and one level into its objects and arrays). */
function paths(e: Entry): string[][] {
  const out: string[][] = [];
  for (const [k, v] of Object.entries(e)) {
    out.push([k]);
    if (v && typeof v === 'object') for (const k2 of Object.keys(v)) out.push([k, k2]);
  }
  return out;
}

const EDITS: Record<string, Edit> = {
  'change a field': (entries, pick) => {
    if (entries.length === 0) return null;
    const copy = structuredClone(entries);
    const e = copy[pick(copy.length)]!;
    const all = paths(e);
    const path = all[pick(all.length)]!;
    const holder = (path.length === 1 ? e : e[path[0]!]) as Record<string, unknown>;
    const key = path.at(-1)!;
    holder[key] = another(holder[key], pick);
    return linesOf(copy, entries.length);
  },
  'add a field': (entries, pick) => {
    if (entries.length === 0) return null;
    const copy = structuredClone(entries);
    copy[pick(copy.length)]!['note'] = 'approved by the board';
    return linesOf(copy, entries.length);
  },
  'remove a field': (entries, pick) => {
    if (entries.length === 0) return null;
    const copy = structuredClone(entries);
    const e = copy[pick(copy.length)]!;
    const keys = Object.keys(e);
    delete e[keys[pick(keys.length)]!];
    return linesOf(copy, entries.length);
  },
  'drop an entry': (entries, pick) => {
    if (entries.length === 0) return null;
    const copy = [...entries];
    copy.splice(pick(copy.length), 1);
    return linesOf(copy, entries.length);
  },
  'drop an entry and fix the count': (entries, pick) => {
    // A middle one: without its first or last entry, and the count fixed, an export is a shorter
    // one, which only an anchor from outside it can tell (docs/audit.md "Verifying an export").
    if (entries.length < 3) return null;
    const copy = [...entries];
    copy.splice(1 + pick(copy.length - 2), 1);
    return linesOf(copy);
  },
  'swap two entries': (entries, pick) => {
    if (entries.length < 2) return null;
    const copy = [...entries];
    const i = pick(copy.length);
    const j = (i + 1 + pick(copy.length - 1)) % copy.length;
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    return linesOf(copy, entries.length);
  },
  'copy an entry to another place': (entries, pick) => {
    if (entries.length === 0) return null;
    const copy = [...entries];
    copy.splice(pick(copy.length + 1), 0, copy[pick(copy.length)]!);
    return linesOf(copy);
  },
  'insert a forged entry that hashes right': (entries, pick) => {
    // Before an entry: one linked after the last is a longer chain, which only an anchor from
    // outside the export can show (docs/audit.md "Verifying an export").
    if (entries.length < 2) return null;
    const at = pick(entries.length - 1);
    const model = entries[at]!;
    const body: Entry = { ...model, target: 'key:forged', seq: Number(model['seq']) + 1, prev: model['hash'] };
    delete body['hash'];
    const copy = [...entries];
    copy.splice(at + 1, 0, { ...body, hash: auditHash(body) });
    return linesOf(copy);
  },
  'change the closing count': (entries, pick) => linesOf(entries, entries.length + 1 + pick(3)),
  'cut the closing line': (entries) => linesOf(entries).slice(0, -1),
  'add a line after the end': (entries) => [...linesOf(entries), JSON.stringify(entries[0] ?? { complete: true, entries: 0 })],
};

test('every single edit of an export is found (a field changed, added or removed, an entry dropped, moved or inserted, the end cut)', () => {
  const names = Object.keys(EDITS);
  fc.assert(
    fc.property(exports, fc.constantFrom(...names), fc.infiniteStream(fc.nat()), (entries, name, randoms) => {
      const pick = (n: number) => randoms.next().value % n;
      const edited = EDITS[name]!(entries, pick);
      fc.pre(edited !== null);
      const v = verify(edited!);
      assert.equal(v.ok, false, `${name} went unnoticed: ${edited!.join('\n')}`);
    }),
    { numRuns: 2000 },
  );
});

test('the verdict names the first broken entry and says what is wrong with it', async () => {
  const entries = fc.sample(
    exports.filter((e) => e.length >= 6 && e[0]!['seq'] === 1),
    { numRuns: 1, seed: 7 },
  )[0]!;
  const ok = await verifyAuditExport(linesOf(entries));
  assert.match(
    describeVerdict(ok),
    /^audit export verified: \d+ entries of workspace [a-z0-9-]+, seq 1 to \d+, complete and unaltered, from the start of the chain; last hash [0-9a-f]{64}$/,
  );

  const dropped = [...entries];
  dropped.splice(3, 1);
  const gap = await verifyAuditExport(linesOf(dropped));
  assert.deepEqual(gap.ok ? null : [gap.line, gap.seq, gap.problem], [
    4,
    5,
    'the export is not complete: seq 4 is missing before this entry',
  ]);

  const altered = structuredClone(entries);
  altered[2]!['actor'] = 'someone-else@example.com';
  const changed = await verifyAuditExport(linesOf(altered));
  assert.deepEqual(changed.ok ? null : [changed.line, changed.seq, changed.id], [3, 3, entries[2]!['id']]);
  assert.match(
    describeVerdict(changed),
    /^audit export BROKEN at line 3 \(seq 3, id \d+-0\): the entry was altered: its content does not hash to its hash$/,
  );

  const cut = await verifyAuditExport(linesOf(entries).slice(0, -1));
  assert.match(describeVerdict(cut), /ends without its closing .* line: it was cut; export again$/);

  // Mid-chain: the first prev anchors it; an anchor from an earlier export must match it.
  const tail = entries.slice(2);
  const anchored = await verifyAuditExport(linesOf(tail));
  assert.match(
    describeVerdict(anchored),
    /seq 3 to \d+, complete and unaltered, anchored by the first entry's prev [0-9a-f]{64} \(the entries before seq 3 are not in this export\)/,
  );
  assert.equal((await verifyAuditExport(linesOf(tail), { anchor: String(entries[1]!['hash']) })).ok, true);
  const wrong = await verifyAuditExport(linesOf(tail), { anchor: 'a'.repeat(64) });
  assert.match(wrong.ok ? '' : wrong.problem, /the first entry's prev is not the anchor a{64}/);

  const legacy = {
    id: '1-0',
    at: 1,
    workspace: 'w',
    actor: 'a@example.com',
    action: 'key.created',
    target: 't',
    source: '',
    requestId: '',
    detail: {},
  };
  const before = await verifyAuditExport([JSON.stringify(legacy), JSON.stringify({ complete: true, entries: 1 })]);
  assert.match(before.ok ? '' : before.problem, /carries no chain \(seq, prev and hash\): it was written before the chain began/);
});
