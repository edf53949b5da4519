/**
 * What a newcomer meets at the terminal, against the real stack (docs/cli.md): the project found
 * without --project when there is one (or the one `svc use` chose), the tools this key can call
 * and their schemas (`svc tools`), refusals about tools that point there with the nearest name,
 * `svc api` for any REST call, levels in any case, tables fitted to 120 columns with relative
 * times (exact in --json), colour only where it is wanted, and bash completion from the table.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { BIN, RUN_BOUND_MS, runToEnd, tempDir } from './support.ts';

let stack: Stack;
let owner: Awaited<ReturnType<typeof newPerson>>;
let env: Record<string, string>;

before(async () => {
  stack = await startStack();
  // PRO: this file's commands, each finding its project (GET /api/v1/projects) or calling a tool,
  // send more through the one personal key in a minute than FREE admits one client (15).
  owner = await newPerson(stack, 'cli-newcomer', { plan: 'PRO' });
  const personal = (await stack.accounts.keys.createUserKey({ userId: owner.user.id })).key;
  env = { SVC_API_KEY: personal, SVC_BASE_URL: stack.baseUrl, SVC_CONFIG_DIR: await tempDir('newcomer') };
});
// Unset when starting it failed: that failure is the one to read, not a TypeError here.
after(() => stack?.close());

const svc = (args: string[], extra: Record<string, string> = {}) => runToEnd(BIN.svc, args, { ...env, ...extra });
// eslint-disable-next-line no-control-regex -- an escape sequence is what it looks for
const ESCAPE = /\u001b\[/;

test('svc tools lists what this key can call, describe shows the schema; a mistyped tool gets the nearest name', async () => {
  // One project: no --project needed.
  const list = await svc(['tools']);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^TOOL\s+DESCRIPTION/);
  assert.match(list.stdout, /svc_search\s+\S/);
  assert.match(list.stdout, new RegExp(`svc tools describe <name> --project ${owner.slug}`));
  const json = JSON.parse((await svc(['tools', '--json'])).stdout) as { tools: { name: string; inputSchema: object }[] };
  assert.ok(json.tools.some((t) => t.name === 'svc_help'));

  const described = await svc(['tools', 'describe', 'svc_search']);
  assert.equal(described.code, 0, described.stderr);
  assert.match(described.stdout, /ARGUMENT\s+TYPE\s+REQUIRED\s+DESCRIPTION/);
  assert.match(described.stdout, /query\s+string\s+yes/);
  assert.match(described.stdout, /Input schema \(JSON Schema\):\n\{\n {2}"type": "object"/);
  assert.match(described.stdout, new RegExp(`Call it: svc call svc_search --project ${owner.slug} --arg query=\\.\\.\\.`));

  const typo = await svc(['tools', 'describe', 'svc_serch']);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /Did you mean svc_search\?/);

  const call = await svc(['call', 'svc_serch', '--arg', 'query=x']);
  assert.equal(call.code, 1);
  assert.match(call.stderr, /Unknown tool: svc_serch\. Did you mean svc_search\?/);
  assert.match(call.stderr, new RegExp(`Run "svc tools --project ${owner.slug}" for the tools this key can call there\\.`));
  assert.doesNotMatch(call.stderr, /openapi/i);
  const badArgs = await svc(['call', 'svc_search', '--arg', 'limit=many']);
  assert.equal(badArgs.code, 1);
  assert.match(badArgs.stderr, new RegExp(`svc tools describe svc_search --project ${owner.slug}`));
  assert.doesNotMatch(badArgs.stderr, /openapi/i);
});

test('the default project: the only one, then the one svc use chose; --project always wins', async () => {
  const second = `${owner.slug}-two`;
  await stack.accounts.workspaces.createProject({ slug: second, workspace: owner.user.workspace });
  const dir = await tempDir('use');
  const own = { SVC_CONFIG_DIR: dir };
  const ambiguous = await svc(['keys', 'list'], own);
  assert.equal(ambiguous.code, 2);
  assert.match(ambiguous.stderr, new RegExp(`Which project\\? This key reaches 2: .*${owner.slug}`));
  assert.match(ambiguous.stderr, /svc use <slug>/);

  const typo = await svc(['use', `${second}x`], own);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, new RegExp(`Did you mean ${second}\\?`));
  const used = await svc(['use', second], own);
  assert.equal(used.code, 0, used.stderr);
  assert.match(
    used.stdout,
    new RegExp(`Commands now use ${second} when --project is not given \\(saved in ${join(dir, 'config.json')}\\)`),
  );
  const created = await svc(['keys', 'create', '--name', 'in-two', '--level', 'editor'], own);
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stderr, /Key "in-two" \(EDITOR\) created/, 'a level in any case');
  const inTwo = JSON.parse((await svc(['keys', 'list', '--json'], own)).stdout) as { keys: { name: string }[] };
  assert.ok(inTwo.keys.some((k) => k.name === 'in-two'));
  const inOne = JSON.parse((await svc(['keys', 'list', '--project', owner.slug, '--json'], own)).stdout) as { keys: { name: string }[] };
  assert.ok(!inOne.keys.some((k) => k.name === 'in-two'), '--project overrides the default');
  const shown = await svc(['use'], own);
  assert.match(shown.stdout, new RegExp(`Default project for ${stack.baseUrl}: ${second}`));
  assert.equal((await svc(['use', '--clear'], own)).code, 0);
  assert.equal((await svc(['keys', 'list'], own)).code, 2);
  const badLevel = await svc(['keys', 'create', '--name', 'x', '--level', 'owner', '--project', owner.slug], own);
  assert.equal(badLevel.code, 2);
  assert.match(badLevel.stderr, /Give --level VIEWER\|EDITOR\|ADMIN/);
});

test('svc api: an authenticated REST call, JSON printed; a non-2xx prints the body and exits 1', async () => {
  const me = await svc(['api', 'get', '/api/v1/me']);
  assert.equal(me.code, 0, me.stderr);
  assert.equal((JSON.parse(me.stdout) as { user: { email: string } }).user.email, owner.email);
  const projects = await svc(['api', 'GET', 'api/v1/projects']);
  assert.ok((JSON.parse(projects.stdout) as { projects: { slug: string }[] }).projects.some((p) => p.slug === owner.slug));

  const body = join(await tempDir('api'), 'key.json');
  await writeFile(body, JSON.stringify({ name: 'from-api', level: 'VIEWER', expires: '7d' }));
  const created = await svc(['api', 'POST', `/api/v1/projects/${owner.slug}/keys`, '--data', `@${body}`]);
  assert.equal(created.code, 0, created.stderr);
  const answer = JSON.parse(created.stdout) as { name: string; key: string };
  assert.equal(answer.name, 'from-api');
  assert.match(answer.key, /^svc-\w{4}…$/, 'a key in an answer is redacted like any output');

  const refused = await svc(['api', 'GET', '/api/v1/projects/no-such-project/keys']);
  assert.equal(refused.code, 1);
  assert.ok((JSON.parse(refused.stdout) as { error: { code: string } }).error.code, 'the body is printed');
  assert.match(refused.stderr, /GET \/api\/v1\/projects\/no-such-project\/keys answered 40\d/);
  const badData = await svc(['api', 'POST', '/api/v1/me', '--data', '{nope']);
  assert.equal(badData.code, 2);
  assert.match(badData.stderr, /--data is not valid JSON/);
  const method = await svc(['api', 'GTE', '/api/v1/me']);
  assert.equal(method.code, 2);
  assert.match(method.stderr, /Did you mean GET\?/);
});

test('tables fit 120 columns with an ellipsis and relative times; --json keeps the exact time; colour only when wanted', async () => {
  // The owner has two projects by now (the test before made the second): this one is named.
  const p = ['--project', owner.slug];
  const name = `a-very-long-key-name-${'x'.repeat(50)}`;
  const created = await svc([
    'keys',
    'create',
    '--name',
    name,
    '--expires',
    '30d',
    '--allow-ip',
    '203.0.113.0/24,198.51.100.0/24,192.0.2.0/24,2001:db8::/32',
    ...p,
  ]);
  assert.equal(created.code, 0, created.stderr);
  const narrow = await svc(['keys', 'list', ...p], { COLUMNS: '120' });
  assert.equal(narrow.code, 0, narrow.stderr);
  const lines = narrow.stdout.trimEnd().split('\n');
  for (const line of lines) assert.ok([...line].length <= 120, `${[...line].length} columns: ${line}`);
  const row = lines.find((l) => l.includes('a-very-long-key'));
  assert.ok(row, narrow.stdout);
  assert.match(row!, /a-very-long-key-[a-z-]*…/);
  assert.match(row!, /in 30 days/);
  assert.doesNotMatch(narrow.stdout, /\d{4}-\d{2}-\d{2}T/, 'no ISO timestamps in the table');
  const json = JSON.parse((await svc(['keys', 'list', ...p, '--json'])).stdout) as { keys: { name: string; expires_at: string }[] };
  assert.match(json.keys.find((k) => k.name === name)!.expires_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  assert.ok((await svc(['keys', 'list', ...p])).stdout.includes(name), 'into a pipe nothing is cut');

  assert.doesNotMatch((await svc(['keys', 'list', ...p])).stdout, ESCAPE, 'a pipe gets no colour');
  // eslint-disable-next-line no-control-regex -- the bold header's escape codes are what it looks for
  assert.match((await svc(['keys', 'list', ...p], { FORCE_COLOR: '1' })).stdout, /^\u001b\[1mID\u001b\[22m/);
  assert.doesNotMatch((await svc(['keys', 'list', ...p], { NO_COLOR: '1' })).stdout, ESCAPE);
  assert.doesNotMatch((await svc(['keys', 'lsit', ...p], { NO_COLOR: '1' })).stderr, ESCAPE);
});

test('bash completion, written from the command table, completes commands, subcommands and options', async () => {
  const complete = async (...words: string[]) => {
    const script = `source <("$SVC" completion bash); COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _svc; echo "\${COMPREPLY[*]}"`;
    // Bounded like every run of the bins (support.ts), and stdin closed: nothing here reads it.
    const bash = promisify(execFile)('bash', ['-c', script], {
      env: { ...env, PATH: process.env['PATH'] ?? '', SVC: BIN.svc },
      timeout: RUN_BOUND_MS,
      killSignal: 'SIGKILL',
    });
    bash.child.stdin?.end();
    const { stdout } = await bash;
    return stdout.trim();
  };
  assert.equal(await complete('svc', 'ke'), 'keys');
  assert.equal(await complete('svc', 'keys', 'l'), 'list limit');
  assert.equal(await complete('svc', 'keys', 'list', '--pro'), '--project');
  assert.equal(await complete('svc', 'webhooks', 'lis'), 'list listen');
  assert.equal(await complete('svc', 'tools', 'd'), 'describe');
});
