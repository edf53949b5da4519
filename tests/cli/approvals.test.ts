/**
 * `svc approvals` against the real stack (docs/approvals.md "Deciding", docs/cli.md): a project's
 * held calls listed with the arguments they will run with, one approved (of the call's hash, or
 * of the hash given with --call-hash: another call's is refused with the server's words), one
 * denied; an unknown id or subcommand says what to give (exit 2), the nearest subcommand named.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { BIN, runToEnd, tempDir } from './support.ts';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack?.close());

test('list, approve and deny held calls in the default project', async () => {
  const who = await newPerson(stack, 'apcli');
  const key = (await stack.accounts.keys.createUserKey({ userId: who.user.id })).key;
  const env = { SVC_API_KEY: key, SVC_BASE_URL: stack.baseUrl, SVC_CONFIG_DIR: await tempDir('apcli') };
  const svc = (args: string[]) => runToEnd(BIN.svc, ['approvals', ...args], env);
  const hold = (title: string) =>
    stack.accounts.approvals.create(
      {
        project: who.slug,
        workspace: who.user.workspace,
        tool: 'notes__write_note',
        arguments: { title, text: 'from an agent' },
        caller: { type: 'key', id: 'key_agent', label: 'agent key', clientId: 'svc-key:key_agent' },
      },
      { source: '192.0.2.1', requestId: 'test' },
    );
  assert.match((await svc(['list'])).stdout, /No call waits for an approval/);
  const [first, second] = [await hold('first'), await hold('second')];

  const listed = await svc(['list']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(`${first.id}\\s+pending`));
  assert.match(listed.stdout, /notes__write_note \{"title":"first","text":"from an agent"\}/);

  const pinned = await svc(['approve', first.id, '--call-hash', second.callHash]);
  assert.equal(pinned.code, 1, 'the hash of another call is refused');
  assert.match(pinned.stderr, /another call/);
  const approved = await svc(['approve', first.id]);
  assert.equal(approved.code, 0, approved.stderr);
  assert.match(approved.stdout, /^Approved apr_\S+: notes__write_note \{"title":"first".*\} by agent key\. It runs once/m);
  assert.equal((await stack.accounts.approvals.get(who.slug, first.id))?.status, 'approved');

  const denied = await svc(['deny', second.id]);
  assert.equal(denied.code, 0, denied.stderr);
  assert.equal((await stack.accounts.approvals.get(who.slug, second.id))?.status, 'denied');
  const again = await svc(['approve', second.id]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /already denied/);

  const unknown = await svc(['approve', 'apr_nope']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /There is no approval apr_nope/);
  const wrong = await svc(['aprove']);
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /Did you mean "approve"\?/);
});

test("svc tools approval lists and sets which calls of svc's own tools wait", async () => {
  const who = await newPerson(stack, 'tlcli');
  const key = (await stack.accounts.keys.createUserKey({ userId: who.user.id })).key;
  const env = { SVC_API_KEY: key, SVC_BASE_URL: stack.baseUrl, SVC_CONFIG_DIR: await tempDir('tlcli') };
  const svc = (args: string[]) => runToEnd(BIN.svc, ['tools', 'approval', ...args], env);

  const listed = await svc([]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /svc_help\s+NONE\s+always runs/);
  assert.match(listed.stdout, /svc_search\s+VIEWER\s+none/);

  const set = await svc(['svc_search', 'below:EDITOR']);
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stdout, /Calls of svc_search on \S+ now wait for an admin's approval \(below:EDITOR\)/);
  assert.match((await svc([])).stdout, new RegExp(`svc_search\\s+VIEWER\\s+below:EDITOR\\s+${who.email}`));

  const refused = await svc(['svc_help', 'all']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /cannot wait for an approval/);
  const badRule = await svc(['svc_search', 'sometimes']);
  assert.equal(badRule.code, 1);
  assert.match(badRule.stderr, /approval/);
  const noRule = await svc(['svc_search']);
  assert.equal(noRule.code, 2);
  assert.match(noRule.stderr, /Which rule\?/);
});
