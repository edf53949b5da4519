/**
 * `svc upstreams` against the real stack and a real upstream MCP server (the official SDK v1,
 * tests/support/upstream-servers.ts), as docs/cli.md "Upstream MCP servers" says: a server
 * registered by its URL in the default project, listed, shown with its tools and their rows,
 * a tool's row changed by its name here or at the server, the server's changes read again and
 * accepted, the credential changed and removed, the server removed only once confirmed; a URL svc
 * cannot read refused with the server's words; the step-up refusal a person with a second factor
 * gets, the same as other commands'. The credential's value is sent to the upstream and never
 * appears in anything the CLI prints, on success or failure.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { freePort } from '@svc/testkit';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { noteTools, startSdkV1Upstream, type TestUpstream } from '../support/upstream-servers.ts';
import { BIN, runToEnd, tempDir, type Exit, type RunOptions } from './support.ts';

/** An upstream's answer as --json prints it, read member by member. */
interface UpstreamJson {
  name: string;
  url: string;
  credential: { header: string } | null;
  tools: { name: string; listed_name: string; state: string; level: string; enabled: boolean; pending: object | null }[];
}

const SECRET = 'upstream-secret-Zq7xW2vR9tLm';
const SECOND_SECRET = 'Bearer second-secret-Hk4pN8sJ3dYc';
const SECRETS = [SECRET, SECOND_SECRET, SECOND_SECRET.slice('Bearer '.length)];

let stack: Stack;
const servers: TestUpstream[] = [];

before(async () => {
  // The test upstreams listen on loopback, which svc calls only when the operator allows it (docs/upstream-servers.md).
  stack = await startStack({ UPSTREAM_ALLOWED_PRIVATE: '127.0.0.1/32' });
});
after(async () => {
  try {
    for (const s of servers) await s.close();
  } finally {
    await stack?.close();
  }
});

/** A person with a PRO workspace and one project (so no --project is needed) and their personal key. */
async function person(prefix: string) {
  // PRO: each command finds the default project (GET /api/v1/projects), more in a minute through
  // the one personal key than FREE admits one client (15).
  const who = await newPerson(stack, prefix, { plan: 'PRO' });
  const key = (await stack.accounts.keys.createUserKey({ userId: who.user.id })).key;
  const env = { SVC_API_KEY: key, SVC_BASE_URL: stack.baseUrl, SVC_CONFIG_DIR: await tempDir(prefix) };
  const svc = async (args: string[], extra: Record<string, string> = {}, options: RunOptions = {}): Promise<Exit> => {
    const r = await runToEnd(BIN.svc, ['upstreams', ...args], { ...env, ...extra }, undefined, options);
    // Whatever the command and however it ended, a credential's value is never printed.
    for (const secret of SECRETS)
      assert.ok(!r.stdout.includes(secret) && !r.stderr.includes(secret), `svc upstreams ${args[0]} printed a credential`);
    return r;
  };
  return { ...who, key, env, svc };
}

const row = (out: string, tool: string) => out.split('\n').find((l) => l.startsWith(`${tool} `)) ?? `(no row for ${tool} in)\n${out}`;

test('add, list, show, tool, refresh, update and remove an upstream, in the default project', async () => {
  const o = await person('cli-up');
  const server = await startSdkV1Upstream({ json: true });
  servers.push(server);

  const none = await o.svc(['list']);
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stdout, new RegExp(`No upstream MCP servers in ${o.slug}\\. Register one: svc upstreams add`));

  // The credential's value from the environment; the header from the command line.
  const added = await o.svc(['add', 'notes', '--url', server.url, '--credential-header', 'X-Api-Key', '--timeout-ms', '5000'], {
    SVC_UPSTREAM_CREDENTIAL: SECRET,
  });
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stdout, /^Upstream notes registered: 4 tools, listed to the project's clients as notes__<tool>\./);
  assert.match(added.stdout, new RegExp(`Upstream notes of ${o.slug}: ${server.url}`));
  assert.match(added.stdout, /timeout 5000 ms; credential: sent in X-Api-Key \(its value is never shown\)/);
  assert.match(added.stdout, /^TOOL\s+STATE\s+LEVEL\s+PLAN\s+ENABLED$/m);
  // readOnlyHint gives VIEWER; no hints or destructiveHint give ADMIN (docs/upstream-servers.md "Policy rows").
  assert.match(row(added.stdout, 'notes__read_notes'), /^notes__read_notes\s+ok\s+VIEWER\s+\w+\s+yes$/);
  assert.match(row(added.stdout, 'notes__delete_note'), /^notes__delete_note\s+ok\s+ADMIN\s+\w+\s+yes$/);
  assert.ok(
    server.calls.some((c) => c.headers['x-api-key'] === SECRET),
    'the credential reached the upstream in its header',
  );

  const listed = await o.svc(['list']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^NAME\s+URL\s+TOOLS\s+TOOLS READ\s+PROBLEM$/m);
  assert.match(listed.stdout, new RegExp(`^notes\\s+${server.url.replace(/[./]/g, '\\$&')}\\s+4\\s+just now`, 'm'));

  const shown = JSON.parse((await o.svc(['show', 'notes', '--json'])).stdout) as UpstreamJson;
  assert.deepEqual(shown.credential, { header: 'X-Api-Key' });
  assert.equal(shown.tools.length, 4);

  // A tool by its listed name or its name at the upstream; a level in any case.
  const lowered = await o.svc(['tool', 'notes', 'notes__write_note', '--level', 'viewer']);
  assert.equal(lowered.code, 0, lowered.stderr);
  assert.match(lowered.stdout, /^notes__write_note: VIEWER, plan \w+ and up, enabled, state ok\.$/m);
  const off = await o.svc(['tool', 'notes', 'read_notes', '--disable']);
  assert.equal(off.code, 0, off.stderr);
  assert.match(row((await o.svc(['show', 'notes'])).stdout, 'notes__read_notes'), /\s+no$/);
  const typo = await o.svc(['tool', 'notes', 'read_note', '--enable']);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /notes has no tool "read_note"\. Did you mean read_notes\?/);
  const nothing = await o.svc(['tool', 'notes', 'read_notes']);
  assert.equal(nothing.code, 2);
  assert.match(nothing.stderr, /Give what changes: --level L, --plan P, --approval A, --cost N, --enable or --disable, --accept-change/);
  const badPlan = await o.svc(['tool', 'notes', 'read_notes', '--plan', 'prp']);
  assert.equal(badPlan.code, 2);
  assert.match(badPlan.stderr, /Unknown plan "PRP"\. Did you mean PRO\?/);
  // Which calls wait for an admin's approval (docs/approvals.md), a level in any case.
  const gated = await o.svc(['tool', 'notes', 'write_note', '--approval', 'below:admin']);
  assert.equal(gated.code, 0, gated.stderr);
  assert.match(gated.stdout, /^notes__write_note: VIEWER, .*, calls wait for an admin's approval \(below:ADMIN\)\.$/m);
  const badRule = await o.svc(['tool', 'notes', 'write_note', '--approval', 'agent']);
  assert.equal(badRule.code, 2);
  assert.match(badRule.stderr, /Unknown approval rule "agent"\. Did you mean agents\?/);
  assert.equal((await o.svc(['tool', 'notes', 'write_note', '--approval', 'none'])).code, 0);
  // What a call spends of its caller's tool budget (docs/operations.md "Limits for agents").
  const costly = await o.svc(['tool', 'notes', 'write_note', '--cost', '5']);
  assert.equal(costly.code, 0, costly.stderr);
  assert.match(costly.stdout, /^notes__write_note: .*, a call costs 5 of the caller's tool budget\.$/m);
  for (const bad of ['0', '1001', 'five', '2.5']) {
    const refused = await o.svc(['tool', 'notes', 'write_note', '--cost', bad]);
    assert.equal(refused.code, 2, bad);
    assert.match(refused.stderr, new RegExp(`--cost must be a whole number from 1 to 1000, not "${bad.replace('.', '\\.')}"`));
  }
  assert.equal((await o.svc(['tool', 'notes', 'write_note', '--cost', '1'])).code, 0);

  // The server changes: a tool appears (off until turned on), one changes (kept as it was until accepted).
  const tools = noteTools();
  tools[1] = { ...tools[1]!, description: 'Writes a note, and now mails it too' };
  tools.push({ name: 'archive_notes', description: 'Archives the notes', inputSchema: { type: 'object', properties: {} } });
  server.setTools(tools);
  const refreshed = await o.svc(['refresh', 'notes']);
  assert.equal(refreshed.code, 0, refreshed.stderr);
  assert.match(refreshed.stdout, /^Read notes's tools again: 5 tools\./);
  assert.match(row(refreshed.stdout, 'notes__archive_notes'), /\s+new\s+ADMIN\s+\w+\s+no$/);
  assert.match(row(refreshed.stdout, 'notes__write_note'), /\s+changed\s+VIEWER\s/);
  assert.match(refreshed.stdout, /New tools stay off until turned on: svc upstreams tool notes <tool> --enable/);
  assert.match(refreshed.stdout, /Changed tools are offered as they were until the change is accepted: .* --accept-change/);
  assert.match((await o.svc(['list'])).stdout, /\s5 \(1 new, 1 changed\)\s/);
  assert.equal((await o.svc(['tool', 'notes', 'archive_notes', '--enable'])).code, 0);
  const accepted = await o.svc(['tool', 'notes', 'write_note', '--accept-change']);
  assert.equal(accepted.code, 0, accepted.stderr);
  const settled = JSON.parse((await o.svc(['show', 'notes', '--json'])).stdout) as UpstreamJson;
  const byName = Object.fromEntries(settled.tools.map((t) => [t.name, t]));
  assert.equal(byName['archive_notes']?.state, 'listed');
  assert.equal(byName['archive_notes']?.enabled, true);
  assert.equal(byName['write_note']?.state, 'listed');
  assert.equal(byName['write_note']?.pending, null);

  // A new credential from stdin (in Authorization: svc's own token moves to Svc-Forwarded-Token), then none.
  const since = server.calls.length;
  const changed = await o.svc(
    ['update', 'notes', '--credential-header', 'Authorization', '--credential-stdin'],
    {},
    { input: `${SECOND_SECRET}\n` },
  );
  assert.equal(changed.code, 0, changed.stderr);
  assert.match(changed.stdout, /^Upstream notes changed, and its tools read again\./);
  assert.match(changed.stdout, /credential: sent in Authorization \(its value is never shown\)/);
  assert.ok(
    server.calls.slice(since).some((c) => c.authorization === SECOND_SECRET),
    'the new credential, without the line end echo added',
  );
  const removedCredential = await o.svc(['update', 'notes', '--remove-credential', '--timeout-ms', '20000']);
  assert.equal(removedCredential.code, 0, removedCredential.stderr);
  assert.match(removedCredential.stdout, /timeout 20000 ms; credential: none;/);

  // Removing asks first; with no terminal to ask on, only --yes does it.
  const unasked = await o.svc(['remove', 'notes']);
  assert.equal(unasked.code, 2);
  assert.match(
    unasked.stderr,
    new RegExp(`Nothing done: svc asks before it would remove upstream notes from ${o.slug}, and there is no terminal here to ask on\\.`),
  );
  assert.match(unasked.stderr, new RegExp(`To do it without being asked: svc upstreams remove notes --project ${o.slug} --yes`));
  assert.match((await o.svc(['list'])).stdout, /^notes\s/m, 'still there');
  const removed = await o.svc(['remove', 'notes', '--yes']);
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, new RegExp(`Upstream notes removed from ${o.slug}: its tools are no longer offered\\.`));
  assert.match((await o.svc(['list'])).stdout, /No upstream MCP servers/);
  const gone = await o.svc(['show', 'notes']);
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /upstreams show: This project has no upstream server named notes\./);
});

test('a server svc cannot read, or a credential given wrongly, is refused with a clear message, the value never repeated', async () => {
  const o = await person('cli-up-bad');
  const closed = `http://127.0.0.1:${await freePort()}/mcp`;
  const unreachable = await o.svc(
    ['add', 'notes', '--url', closed, '--credential-header', 'X-Api-Key', '--credential-stdin'],
    {},
    { input: SECRET },
  );
  assert.equal(unreachable.code, 1);
  assert.match(unreachable.stderr, /^svc: upstreams add: svc could not read the server's tools: .*reached/);
  assert.doesNotMatch(unreachable.stderr, /127\.0\.0\.1/, 'the address is not repeated (docs/upstream-servers.md)');
  const notUrl = await o.svc(['add', 'notes', '--url', 'notes.example.com']);
  assert.equal(notUrl.code, 1);
  assert.match(notUrl.stderr, /^svc: upstreams add: The url is not an absolute URL\./);
  assert.match((await o.svc(['list'])).stdout, /No upstream MCP servers/, 'nothing was registered');

  // The value on the command line, where it does not belong: refused, and not printed back.
  const inArgv = await o.svc(['add', 'notes', '--url', closed, '--credential-header', 'X-Api-Key', SECRET]);
  assert.equal(inArgv.code, 2);
  assert.match(inArgv.stderr, /svc upstreams add <name> takes no other word; one was given \(not repeated here\)/);
  assert.match(inArgv.stderr, /set SVC_UPSTREAM_CREDENTIAL, or pipe it with --credential-stdin/);
  const noValue = await o.svc(['add', 'notes', '--url', closed, '--credential-header', 'X-Api-Key'], { SVC_UPSTREAM_CREDENTIAL: '' });
  assert.equal(noValue.code, 2);
  assert.match(noValue.stderr, /--credential-header X-Api-Key needs the credential's value in SVC_UPSTREAM_CREDENTIAL, or on stdin/);
  const noHeader = await o.svc(['add', 'notes', '--url', closed, '--credential-stdin'], {}, { input: SECRET });
  assert.equal(noHeader.code, 2);
  assert.match(noHeader.stderr, /--credential-stdin gives a value: name its header with --credential-header/);
  const noName = await o.svc(['add', '--url', closed]);
  assert.equal(noName.code, 2);
  assert.match(noName.stderr, /Which upstream server\? svc upstreams add <name>/);
  const noUrl = await o.svc(['add', 'notes']);
  assert.equal(noUrl.code, 2);
  assert.match(noUrl.stderr, /Give --url, e\.g\. --url https:\/\//);
});

test('with a second factor, add asks for a step-up with the remedy other commands give; reading needs none; a project ADMIN key is not asked', async () => {
  const o = await person('cli-up-factor');
  await stack.accounts.factors.beginTotp(o.user.id, 'JBSWY3DPEHPK3PXP');
  assert.ok(Array.isArray(await stack.accounts.factors.confirmTotp(o.user.id, 1)));
  const server = await startSdkV1Upstream({ json: true });
  servers.push(server);

  const refused = await o.svc(['add', 'notes', '--url', server.url]);
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /^svc: upstreams add: Step-up required: this needs a second factor used within \d+ minutes; do it on the dashboard/,
  );
  assert.equal(server.calls.length, 0, 'nothing was sent to the upstream');
  const keys = await runToEnd(BIN.svc, ['keys', 'create', '--name', 'ci'], o.env);
  assert.equal(keys.code, 1);
  const remedy = (r: Exit) => r.stderr.trim().split('\n').at(-1);
  assert.equal(remedy(refused), remedy(keys), 'the same remedy as svc keys create');
  assert.match(remedy(refused) ?? '', /second factor/);

  const listed = await o.svc(['list']);
  assert.equal(listed.code, 0, listed.stderr);

  // A project ADMIN key is not a person: its level governs it, and it is not asked for a step-up.
  const projectKey = await stack.accounts.keys.createProjectKey({
    project: o.slug,
    workspace: o.user.workspace,
    level: 'ADMIN',
    name: 'ops',
  });
  const byKey = await o.svc(['add', 'notes', '--url', server.url], { SVC_API_KEY: projectKey.key });
  assert.equal(byKey.code, 0, byKey.stderr);
  assert.match(byKey.stdout, /^Upstream notes registered: 4 tools/);
});
