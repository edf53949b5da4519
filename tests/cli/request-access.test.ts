/**
 * `svc request-access`, `svc mcp-config`'s keyless OAuth setup and the help texts, against the real
 * stack (docs/cli.md): a person asks for a level from a terminal and the project's admin sees the
 * request; the OAuth lines name the real endpoint, which answers a keyless call with the way to
 * sign in (RFC 9728); no help text shows a `{placeholder}`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { BIN, runToEnd, tempDir } from './support.ts';

let stack: Stack;
let owner: Awaited<ReturnType<typeof newPerson>>;
let asker: Awaited<ReturnType<typeof newPerson>>;
let env: Record<string, string>;

before(async () => {
  stack = await startStack();
  owner = await newPerson(stack, 'cli-owner');
  asker = await newPerson(stack, 'cli-asker');
  const personal = (await stack.accounts.keys.createUserKey({ userId: asker.user.id })).key;
  env = { SVC_API_KEY: personal, SVC_BASE_URL: stack.baseUrl, SVC_CONFIG_DIR: await tempDir('request-access') };
});
// Unset when starting it failed: that failure is the one to read, not a TypeError here.
after(() => stack?.close());

const svc = (...args: string[]) => runToEnd(BIN.svc, args, env);

test('request-access: a pending request the admins see; asking again updates it; a held level asks nothing', async () => {
  const asked = await svc('request-access', '--project', owner.slug, '--level', 'EDITOR', '--reason', 'fixing the nightly import');
  assert.equal(asked.code, 0, asked.stderr);
  assert.match(asked.stdout, new RegExp(`Access request ar_\\S+ for EDITOR on ${owner.slug} is pending \\(you have NONE\\)`));
  const pending = (await stack.accounts.accessRequests.list(owner.slug)).filter((r) => r.status === 'pending');
  assert.equal(pending.length, 1);
  assert.equal(pending[0]!.requester.label, asker.email);
  assert.equal(pending[0]!.reason, 'fixing the nightly import');

  const again = JSON.parse(
    (await svc('request-access', '--project', owner.slug, '--level', 'ADMIN', '--reason', 'and the exports', '--json')).stdout,
  ) as { id: string; updated: boolean; status: string };
  assert.deepEqual([again.id, again.updated, again.status], [pending[0]!.id, true, 'pending']);

  // Their own project: the level is held, nothing is asked.
  const own = await svc('request-access', '--project', asker.slug, '--level', 'ADMIN', '--reason', 'mine');
  assert.equal(own.code, 0, own.stderr);
  assert.match(own.stdout, /You already have ADMIN on .*: nothing to ask/);
  assert.equal((await stack.accounts.accessRequests.list(asker.slug)).length, 0);
});

test('request-access: what is missing or wrong is named, and nothing is asked', async () => {
  const cases: [string[], RegExp][] = [
    [['--level', 'EDITOR', '--reason', 'x'], /Which project\? Give --project/],
    [['--project', owner.slug, '--reason', 'x'], /Give --level VIEWER\|EDITOR\|ADMIN/],
    [['--project', owner.slug, '--level', 'OWNER', '--reason', 'x'], /Give --level VIEWER\|EDITOR\|ADMIN/],
    [['--project', owner.slug, '--level', 'EDITOR', '--reason', '  '], /Give --reason/],
    [['--project', owner.slug, '--level', 'EDITOR', '--reason', 'x'.repeat(1001)], /longer than 1000 characters/],
    [['--project', 'no-such-project', '--level', 'EDITOR', '--reason', 'x'], /no project no-such-project/],
  ];
  const before = (await stack.accounts.accessRequests.list(owner.slug)).length;
  for (const [args, message] of cases) {
    const r = await svc('request-access', ...args);
    assert.notEqual(r.code, 0, args.join(' '));
    assert.match(r.stderr, message, args.join(' '));
    assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/, 'no stack trace');
  }
  assert.equal((await stack.accounts.accessRequests.list(owner.slug)).length, before);
});

test('mcp-config: keyless OAuth lines for Claude Code, VS Code, Cursor and any client name the real endpoint', async () => {
  const r = await svc('mcp-config', '--project', owner.slug, '--json');
  assert.equal(r.code, 0, r.stderr);
  const { endpoint, oauth } = JSON.parse(r.stdout) as {
    endpoint: string;
    oauth: { claude: string; vscode: string; cursor: string; json: { mcpServers: Record<string, { type: string; url: string }> } };
  };
  assert.equal(endpoint, `${stack.baseUrl}/mcp/${owner.slug}`);
  assert.equal(oauth.claude, `claude mcp add --transport http svc-${owner.slug} ${endpoint}`);
  const vscode = /^code --add-mcp '(.*)'$/.exec(oauth.vscode)?.[1];
  assert.deepEqual(JSON.parse(vscode ?? 'null'), { name: `svc-${owner.slug}`, type: 'http', url: endpoint });
  const cursor = new URL(oauth.cursor);
  assert.equal(`${cursor.protocol}//${cursor.host}${cursor.pathname}`, 'cursor://anysphere.cursor-deeplink/mcp/install');
  assert.deepEqual(JSON.parse(Buffer.from(cursor.searchParams.get('config') ?? '', 'base64').toString()), { url: endpoint });
  assert.deepEqual(oauth.json, { mcpServers: { [`svc-${owner.slug}`]: { type: 'http', url: endpoint } } });
  for (const line of [oauth.claude, oauth.vscode, oauth.cursor]) assert.doesNotMatch(line, /X-API-Key|SVC_API_KEY/, 'no key');

  // What such a client does first: a keyless call is told where its authorization server is (RFC 9728).
  const res = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  await res.body?.cancel();
  assert.equal(res.status, 401);
  const metadataUrl = /resource_metadata="([^"]+)"/.exec(res.headers.get('www-authenticate') ?? '')?.[1];
  assert.ok(metadataUrl, 'the 401 names the protected resource metadata');
  const metadata = (await (await fetch(metadataUrl)).json()) as { authorization_servers: string[] };
  assert.deepEqual(metadata.authorization_servers, [stack.authUrl]);

  // A surface asked for travels with the OAuth lines too.
  const companion = JSON.parse((await svc('mcp-config', '--project', owner.slug, '--surface', 'companion', '--json')).stdout) as {
    oauth: { claude: string; vscode: string };
  };
  assert.ok(companion.oauth.claude.endsWith(" --header 'X-Svc-Surface: companion'"), companion.oauth.claude);
  assert.match(companion.oauth.vscode, /"headers":\{"X-Svc-Surface":"companion"\}/);

  const text = await svc('mcp-config', '--project', owner.slug, '--client', 'claude');
  assert.match(text.stdout, /With OAuth: no key at all/);
  assert.ok(text.stdout.includes(oauth.claude) && text.stdout.includes(oauth.vscode));
});

test('help: every command names the configured servers, never a {placeholder}', async () => {
  const helpEnv = { ...env, SVC_AUTH_URL: stack.authUrl };
  const main = await runToEnd(BIN.svc, ['--help'], helpEnv);
  const commands = [...main.stdout.matchAll(/^ {2}([a-z][a-z-]+) {2,}/gm)].map((m) => m[1]!);
  assert.ok(commands.includes('request-access') && commands.includes('mcp-config'), commands.join(' '));
  const texts = [main.stdout, (await runToEnd(BIN.createSvc, ['--help'], helpEnv)).stdout];
  for (const c of commands) texts.push((await runToEnd(BIN.svc, [c, '--help'], helpEnv)).stdout);
  for (const t of texts) {
    assert.doesNotMatch(t, /\{[a-z_]+\}/, t);
    assert.ok(t.includes(`now ${stack.baseUrl} from SVC_BASE_URL`), t);
    assert.ok(t.includes(`now ${stack.authUrl} from SVC_AUTH_URL`), t);
  }
  assert.match(texts[2 + commands.indexOf('call')]!, new RegExp(`POST ${stack.baseUrl}/api/v1/projects/SLUG/tools/<tool>`));
});
