/**
 * Anyone holding an audit export can check it (docs/audit.md "Verifying an export"):
 * `svc-admin audit verify <file|->` and `svc audit verify <file|->` read the file alone (no Redis, no
 * configuration, no credential), say a sound export is complete and unaltered and from where it is
 * anchored, and name the first broken entry of an edited one, exiting 1; a wrong command line is 2.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { connectRedis, createAccounts, K, type Redis } from '@svc/accounts';
import { startRedis, type RedisFixture } from '@svc/testkit';

const ROOT = resolve(import.meta.dirname, '../..');
const COMMANDS = {
  'svc-admin': [resolve(ROOT, 'scripts/node'), 'packages/svc-admin/src/main.ts'],
  svc: [resolve(ROOT, 'node_modules/.bin/svc')],
} as const;

let redis: RedisFixture;
let client: Redis;
let dir: string;
/** The export's lines, as the REST route streams them: 40 entries, then the closing line. */
let lines: string[];

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url);
  dir = await mkdtemp(join(tmpdir(), 'svc-audit-verify-'));
  const accounts = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4 });
  for (let n = 1; n <= 40; n++)
    await accounts.audit.record({
      workspace: 'acme',
      actor: n % 2 ? 'ada@example.com' : 'key:svc-Ab3x',
      action: n % 3 ? 'key.created' : 'member.added',
      target: `key:k_${n} ("ci \u00e9")`,
      source: '203.0.113.9',
      requestId: `req-${n}`,
      detail: { n: String(n) },
    });
  lines = await exportOf('acme');
  // Retention's trims as the log's cap makes them: the first ten go.
  const tenth = JSON.parse(lines[10]!) as { id: string };
  await client.xtrim(K.auditLog('acme'), 'MINID', tenth.id);
});
after(async () => {
  client.disconnect();
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
});

async function exportOf(workspace: string): Promise<string[]> {
  const accounts = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4 });
  let text = '';
  for await (const chunk of accounts.audit.exportChunks(workspace)) text += chunk;
  return text.split('\n');
}

let files = 0;
async function fileOf(content: string[]): Promise<string> {
  const file = join(dir, `export-${++files}.jsonl`);
  await writeFile(file, content.join('\n'));
  return file;
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one of the two commands with nothing of svc's configuration in its environment. */
function verify(command: keyof typeof COMMANDS, args: string[], stdin?: string): Promise<Ran> {
  const [bin, ...first] = COMMANDS[command];
  const env = { PATH: process.env['PATH'] ?? '', HOME: dir, NO_COLOR: '1' };
  return new Promise((done) => {
    const child = execFile(bin, [...first, 'audit', 'verify', ...args], { cwd: ROOT, env }, (err, stdout, stderr) =>
      done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin ?? '');
  });
}

const edited = (at: number, change: (e: Record<string, unknown>) => void) =>
  lines.map((l, i) => {
    if (i !== at) return l;
    const e = JSON.parse(l) as Record<string, unknown>;
    change(e);
    return JSON.stringify(e);
  });

for (const command of ['svc-admin', 'svc'] as const) {
  test(`${command} audit verify: a sound export, from a file or stdin, needing no server, key or configuration`, async () => {
    const whole = await verify(command, [await fileOf(lines)]);
    assert.equal(whole.code, 0, whole.stderr);
    assert.match(
      whole.stdout,
      /^audit export verified: 40 entries of workspace acme, seq 1 to 40, complete and unaltered, from the start of the chain; last hash [0-9a-f]{64}\n$/,
    );
    const piped = await verify(command, ['-'], lines.join('\n'));
    assert.equal(piped.code, 0, piped.stderr);
    assert.equal(piped.stdout, whole.stdout);
    const json = await verify(command, [await fileOf(lines), '--json']);
    assert.deepEqual(JSON.parse(json.stdout), {
      ok: true,
      entries: 40,
      workspace: 'acme',
      first: { seq: 1, prev: null },
      last: { seq: 40, hash: (JSON.parse(lines[39]!) as { hash: string }).hash },
    });
  });

  test(`${command} audit verify: an export retention trimmed is anchored by its first prev, and an earlier export's last hash joins it`, async () => {
    const kept = await exportOf('acme');
    const file = await fileOf(kept);
    const anchored = await verify(command, [file]);
    assert.equal(anchored.code, 0, anchored.stderr);
    const tenthHash = (JSON.parse(lines[9]!) as { hash: string }).hash;
    assert.match(anchored.stdout, new RegExp(`seq 11 to 40, complete and unaltered, anchored by the first entry's prev ${tenthHash}`));
    assert.equal((await verify(command, [file, '--anchor', tenthHash])).code, 0);
    const wrong = await verify(command, [file, '--anchor', 'a'.repeat(64)]);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /BROKEN at line 1 \(seq 11, id \d+-\d+\): the first entry's prev is not the anchor a{64}/);
  });

  test(`${command} audit verify: an edited export fails at its first broken entry, saying what broke`, async () => {
    const cases: [string[], RegExp][] = [
      [
        edited(9, (e) => (e['actor'] = 'mallory@example.com')),
        /BROKEN at line 10 \(seq 10, id \d+-\d+\): the entry was altered: its content does not hash to its hash/,
      ],
      [
        lines.filter((_, i) => i !== 19),
        /BROKEN at line 20 \(seq 21, id \d+-\d+\): the export is not complete: seq 20 is missing before this entry/,
      ],
      [
        [lines[1]!, lines[0]!, ...lines.slice(2)],
        /BROKEN at line 2 \(seq 1, id \d+-\d+\): the entry is out of order: seq 1 comes after seq 2/,
      ],
      [lines.slice(0, -2), /ends without its closing \{"complete":true,\.\.\.\} line: it was cut; export again/],
    ];
    for (const [content, said] of cases) {
      const r = await verify(command, [await fileOf(content)]);
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stderr, said);
    }
  });

  test(`${command} audit verify: a missing file or no file is a usage error`, async () => {
    const missing = await verify(command, [join(dir, 'nothing-here.jsonl')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /ENOENT|no such file/);
    assert.equal((await verify(command, [])).code, 2);
  });
}
