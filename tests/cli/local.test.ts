/**
 * The CLIs' own behaviour that needs no browser: config-file problems, the device-flow client's
 * reaction to slow_down (against a small device endpoint that answers what the test needs), the
 * project-file edits, argument parsing and host discovery.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { generateCredential } from '@svc/credentials';
import { ensureGitignore, keyInEnvFile, writeEnvFile, readMcpJson, writeMcpJson } from '@svc/cli/project-files.ts';
import { toolArguments } from '@svc/cli/tool-args.ts';
import { freePort } from '@svc/testkit';
import { BIN, runToEnd, tempDir } from './support.ts';

test('a corrupt credentials file gets a message naming it; logout removes it', async () => {
  const dir = await tempDir('corrupt');
  const env = { SVC_CONFIG_DIR: dir, SVC_BASE_URL: 'http://127.0.0.1:9' };
  await writeFile(join(dir, 'credentials.json'), '{"version":1,"key":');
  const r = await runToEnd(BIN.svc, ['whoami'], env);
  assert.equal(r.code, 3);
  assert.match(r.stderr, new RegExp(`${join(dir, 'credentials.json')} is not a valid svc credentials file \\(it is not JSON\\)`));
  assert.match(r.stderr, /svc logout/);
  assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/, 'no stack trace');
  await writeFile(join(dir, 'credentials.json'), JSON.stringify({ version: 1, key: 'svc-user-short' }));
  assert.match((await runToEnd(BIN.svc, ['projects'], env)).stderr, /fields are missing or the key is not a personal svc-user- key/);
  const out = await runToEnd(BIN.svc, ['logout'], env);
  assert.equal(out.code, 0, out.stderr);
  await assert.rejects(stat(join(dir, 'credentials.json')));
});

test('an unreadable credentials file gets a clear message', async () => {
  const dir = await tempDir('unreadable');
  await mkdir(join(dir, 'credentials.json'));
  const r = await runToEnd(BIN.svc, ['whoami'], { SVC_CONFIG_DIR: dir });
  assert.equal(r.code, 3);
  assert.match(r.stderr, /credentials\.json is not a valid svc credentials file \(it is a directory\)/);
  if (process.getuid?.() !== 0) {
    const other = await tempDir('mode');
    await writeFile(join(other, 'credentials.json'), '{}', { mode: 0o000 });
    await chmod(join(other, 'credentials.json'), 0o000);
    const denied = await runToEnd(BIN.svc, ['whoami'], { SVC_CONFIG_DIR: other });
    assert.match(denied.stderr, /Cannot read .*credentials\.json: permission denied/);
  }
});

test('an unreachable server is named, with the variables that choose it', async () => {
  const port = await freePort();
  const r = await runToEnd(BIN.svc, ['call', 'svc_help', '--project', 'p'], {
    SVC_API_KEY: generateCredential('project_key'),
    SVC_BASE_URL: `http://127.0.0.1:${port}`,
    SVC_CONFIG_DIR: await tempDir('unreachable'),
  });
  assert.equal(r.code, 4);
  assert.ok(r.stderr.includes(`Cannot reach http://127.0.0.1:${port} (ECONNREFUSED)`), r.stderr);
  assert.match(r.stderr, /SVC_BASE_URL/);
});

/** A device endpoint scripted by the test: each poll gets the next answer. */
async function deviceEndpoint(answers: { status: number; body: Record<string, unknown> }[], interval: number) {
  const polls: number[] = [];
  const bodies: Record<string, unknown>[] = [];
  const read = async (req: IncomingMessage) => {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await read(req);
    res.setHeader('content-type', 'application/json');
    if (req.url === '/api/oauth/device/code') {
      res.end(
        JSON.stringify({ device_code: 'dc', user_code: 'BCDF-2345', verification_uri: 'http://x/device', expires_in: 600, interval }),
      );
      return;
    }
    polls.push(Date.now());
    bodies.push(body);
    const next = answers.shift() ?? { status: 400, body: { error: 'authorization_pending' } };
    res.statusCode = next.status;
    res.end(JSON.stringify(next.body));
  };
  // A body that is not JSON resets the connection, which the client under test reports.
  const server = createServer((req, res) => {
    answer(req, res).catch((err: unknown) => res.destroy(err instanceof Error ? err : new Error(String(err))));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, polls, bodies, close: () => server.close() };
}

test('slow_down: the client adds 5 s to its interval, and sends client_version on every poll', async () => {
  const key = generateCredential('user_key');
  const fake = await deviceEndpoint(
    [
      { status: 400, body: { error: 'slow_down' } },
      { status: 400, body: { error: 'authorization_pending' } },
      {
        status: 200,
        body: {
          access_token: key,
          token_type: 'Bearer',
          key_type: 'user',
          expires_at: '2030-01-01T00:00:00Z',
          user: { id: 'u1', email: 'a@example.com' },
          server_url: 'http://127.0.0.1:9',
        },
      },
    ],
    1,
  );
  try {
    const dir = await tempDir('slow');
    const r = await runToEnd(BIN.svc, ['login', '--auth-server', fake.url], { SVC_CONFIG_DIR: dir, SVC_BASE_URL: 'http://127.0.0.1:9' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /poll more slowly; now every 6 s/);
    assert.equal(fake.polls.length, 3);
    assert.ok(fake.polls[1]! - fake.polls[0]! >= 5900, `gap after slow_down: ${fake.polls[1]! - fake.polls[0]!} ms`);
    assert.ok(fake.polls[2]! - fake.polls[1]! >= 5900, 'the slower interval stays');
    for (const b of fake.bodies) {
      assert.equal(b['client_id'], 'svc-cli');
      assert.match(String(b['client_version']), /^\d+\.\d+\.\d+$/);
    }
    assert.ok(!r.stdout.includes(key) && !r.stderr.includes(key));
    const stored = JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8')) as { key: string };
    assert.equal(stored.key, key);
  } finally {
    fake.close();
  }
});

test('every poll error but authorization_pending and slow_down ends the wait, saying what happened and what to run', async () => {
  const cases: { answer: { status: number; body: Record<string, unknown> }; code: number; said: RegExp; remedy: RegExp }[] = [
    {
      answer: { status: 400, body: { error: 'access_denied' } },
      code: 5,
      said: /denied or cancelled in the browser\. Nothing was authorized/,
      remedy: /Run the command again to start over/,
    },
    {
      answer: { status: 400, body: { error: 'expired_token' } },
      code: 5,
      said: /The code expired before it was approved/,
      remedy: /Run the command again to get a new code/,
    },
    {
      answer: { status: 400, body: { error: 'invalid_grant', error_description: 'device code already consumed' } },
      code: 5,
      said: /This sign-in code can no longer be used: it was used already, or abandoned \(invalid_grant: device code already consumed\)/,
      remedy: /Run the command again for a new code/,
    },
    {
      answer: { status: 500, body: { error: 'server_error' } },
      code: 1,
      said: /Sign-in stopped: the authorization server answered server_error \(HTTP 500\)/,
      remedy: /check the sign-in server \(--auth-server, SVC_AUTH_URL\)/,
    },
  ];
  for (const c of cases) {
    const fake = await deviceEndpoint([{ status: 400, body: { error: 'authorization_pending' } }, c.answer], 1);
    try {
      const r = await runToEnd(BIN.svc, ['login', '--auth-server', fake.url], { SVC_CONFIG_DIR: await tempDir('poll-error') });
      assert.equal(r.code, c.code, r.stderr);
      assert.match(r.stderr, c.said);
      assert.match(r.stderr, c.remedy);
      assert.equal(fake.polls.length, 2, 'no poll after the error');
    } finally {
      fake.close();
    }
  }
});

test('.env: the key line is replaced in place, other lines kept, 0600; .gitignore and .mcp.json merge', async () => {
  const dir = await tempDir('files');
  await writeFile(join(dir, '.env'), 'A=1\nexport SVC_API_KEY=old\nB=2\nSVC_API_KEY=dup');
  assert.equal(await keyInEnvFile(dir), 'old');
  await writeEnvFile(dir, 'svc-new');
  assert.equal(await readFile(join(dir, '.env'), 'utf8'), 'A=1\nSVC_API_KEY=svc-new\nB=2\n');
  assert.equal((await stat(join(dir, '.env'))).mode & 0o777, 0o600);
  assert.deepEqual(await ensureGitignore(dir), { file: join(dir, '.gitignore'), action: 'created' });
  assert.deepEqual((await ensureGitignore(dir)).action, 'present');
  assert.equal(await readFile(join(dir, '.gitignore'), 'utf8'), '.env\n');
  await writeFile(join(dir, '.gitignore'), 'dist/\n/.env\n');
  assert.equal((await ensureGitignore(dir)).action, 'present');
  await writeFile(join(dir, '.mcp.json'), '{not json');
  await assert.rejects(readMcpJson(dir), /\.mcp\.json is not valid JSON/);
  await writeFile(join(dir, '.mcp.json'), '');
  await writeMcpJson(await readMcpJson(dir), 'http://h/mcp/p', 'p');
  await writeMcpJson(await readMcpJson(dir), 'http://h/mcp/p', 'p');
  assert.deepEqual(JSON.parse(await readFile(join(dir, '.mcp.json'), 'utf8')), {
    mcpServers: { 'svc-p': { type: 'http', url: 'http://h/mcp/p', headers: { 'X-API-Key': '${SVC_API_KEY}' } } },
  });
});

test('tool arguments: JSON values where they parse, strings otherwise, --args first', () => {
  assert.deepEqual(toolArguments('{"query":"a","limit":2}', ['limit=5', 'mode=hybrid', 'flag=true', 'name=a=b']), {
    query: 'a',
    limit: 5,
    mode: 'hybrid',
    flag: true,
    name: 'a=b',
  });
  assert.throws(() => toolArguments('[1]', []), /--args must be a JSON object/);
  assert.throws(() => toolArguments(undefined, ['=x']), /expected name=value/);
});

test('usage errors: unknown command, missing tool, both --project and --team; help for every command', async () => {
  const env = { SVC_CONFIG_DIR: await tempDir('usage') };
  const unknown = await runToEnd(BIN.svc, ['frobnicate'], env);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /Unknown command "frobnicate"\.\n/, 'nothing near: no guess');
  const near = await runToEnd(BIN.svc, ['lgoin'], env);
  assert.equal(near.code, 2);
  assert.match(near.stderr, /Unknown command "lgoin"\. Did you mean "login"\?/);
  const sub = await runToEnd(BIN.svc, ['members', 'lsit'], env);
  assert.equal(sub.code, 2);
  assert.match(sub.stderr, /Unknown subcommand "lsit" for svc members\. Did you mean "list"\?/);
  const flag = await runToEnd(BIN.svc, ['keys', 'list', '--projetc', 'p'], env);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /Unknown option --projetc for svc keys\. Did you mean "--project"\?/);
  const shell = await runToEnd(BIN.svc, ['completion', 'fihs'], env);
  assert.match(shell.stderr, /Did you mean "fish"\?/);
  assert.equal((await runToEnd(BIN.svc, ['call', 'svc_help', '--project', 'a', '--team', 'b'], env)).code, 2);
  for (const command of ['login', 'logout', 'whoami', 'projects', 'call', 'mcp-config', 'tools', 'api', 'use', 'completion']) {
    const r = await runToEnd(BIN.svc, [command, '--help'], env);
    assert.equal(r.code, 0, command);
    assert.match(r.stdout, new RegExp(`Usage: svc ${command}`));
  }
  const cs = await runToEnd(BIN.createSvc, ['--help'], env);
  assert.match(cs.stdout, /\.gitignore/);
});

test('mcp-config never inlines a key, even when one is set', async () => {
  const key = generateCredential('project_key');
  const r = await runToEnd(BIN.svc, ['mcp-config', '--project', 'demo', '--client', 'cursor', '--json'], {
    SVC_API_KEY: key,
    SVC_CONFIG_DIR: await tempDir('mcp'),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!r.stdout.includes(key));
  const doc = JSON.parse(r.stdout) as {
    clients: { cursor: { config: { mcpServers: Record<string, { headers: Record<string, string> }> } } };
  };
  assert.deepEqual(doc.clients.cursor.config.mcpServers['svc-demo']?.headers, { 'X-API-Key': '${env:SVC_API_KEY}' });
});

test('strings from the server cannot act on the terminal: keys, requests, members, audit, errors, --json', async () => {
  // Escape sequences that clear the screen, set the window title, move the cursor (7- and 8-bit
  // CSI), overwrite a line, reorder it (bidi override) or hide text (zero width).
  const hostile = 'ok\u001b[2J\u001b]0;pwned\u0007\u009b1A\rX\u202eevil\u200b\u0000';
  const row = {
    id: hostile,
    name: hostile,
    level: hostile,
    prefix: 'svc-ab',
    status: hostile,
    requester: hostile,
    reason: hostile,
    email: hostile,
    role: hostile,
    userId: hostile,
    action: hostile,
    actor: hostile,
    target: hostile,
    at: hostile,
  };
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url?.includes('/members')) {
      res.statusCode = 403;
      res.end(JSON.stringify({ error: { code: 'access_denied', message: hostile, remedy: hostile } }));
      return;
    }
    res.end(JSON.stringify({ keys: [row], requests: [row], entries: [row], next_cursor: null, creatable_levels: [] }));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const env = {
    SVC_API_KEY: generateCredential('project_key'),
    SVC_BASE_URL: url,
    SVC_AUTH_URL: url,
    SVC_CONFIG_DIR: await tempDir('hostile'),
  };
  try {
    for (const args of [
      ['keys', 'list', '--project', 'p'],
      ['requests', 'list', '--project', 'p'],
      ['audit', '--workspace', 'w'],
      ['members', 'list', '--project', 'p'],
      ['keys', 'list', '--project', 'p', '--json'],
    ]) {
      const r = await runToEnd(BIN.svc, args, env);
      const printed = r.stdout + r.stderr;
      assert.ok(printed.includes('ok'), `${args.join(' ')} printed the server's strings: ${printed}`);
      // eslint-disable-next-line no-control-regex -- the control characters are what it looks for
      assert.doesNotMatch(printed, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b\u202e]/, args.join(' '));
      if (args.includes('--json')) assert.equal(JSON.parse(r.stdout).keys[0].name, hostile, 'JSON means the same string');
    }
  } finally {
    server.close();
  }
});
