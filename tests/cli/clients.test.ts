/**
 * `svc clients` against the real stack (docs/management.md "Client governance", docs/cli.md): the
 * policy shown, its mode set, rules added to either list and removed, a waiting client listed,
 * approved and denied; a bad rule is refused with the server's words, a missing one says what to
 * give (exit 2).
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

test('policy, mode, allow, block, unlist, approvals, approve and deny', async () => {
  const who = await newPerson(stack, 'clcli');
  const ws = who.user.workspace;
  const key = (await stack.accounts.keys.createUserKey({ userId: who.user.id })).key;
  const env = { SVC_API_KEY: key, SVC_BASE_URL: stack.baseUrl, SVC_CONFIG_DIR: await tempDir('clcli') };
  const svc = async (args: string[], code = 0) => {
    const r = await runToEnd(BIN.svc, ['clients', ...args], env);
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    return r;
  };
  assert.match((await svc(['policy'])).stdout, /Mode: {2}open\nAllow: \(none\)\nDeny: {2}\(none\)/);
  await svc(['mode', 'approval']);
  await svc(['allow', 'host', 'claude.ai']);
  await svc(['block', 'name', 'Evil App']);
  const shown = (await svc(['policy'])).stdout;
  assert.match(shown, /Mode: {2}approval\nAllow: host claude\.ai\nDeny: {2}name Evil App/);
  await svc(['unlist', 'host', 'claude.ai']);
  assert.deepEqual((await stack.accounts.clientPolicies.get(ws)).allow, []);

  const bad = await svc(['block', 'host', 'https://x.example'], 1);
  assert.match(bad.stderr, /not a host name/);
  assert.match((await svc(['allow', 'host'], 2)).stderr, /Give a rule/);

  const clientId = 'https://chatgpt.com/oauth/abc/client.json';
  assert.match((await svc(['approvals'])).stdout, /No client waited/);
  await stack.accounts.clientPolicies.fileWait(ws, { clientId, name: 'ChatGPT' }, 'someone@example.com');
  assert.match((await svc(['approvals'])).stdout, /chatgpt\.com\/oauth\/abc\/client\.json\s+ChatGPT\s+pending/);
  assert.match((await svc(['approve', clientId])).stdout, /Approved https:\/\/chatgpt\.com/);
  assert.match((await svc(['deny', clientId])).stdout, /Denied https:\/\/chatgpt\.com.*grants on/);
  assert.equal((await stack.accounts.clientPolicies.approval(ws, clientId))?.state, 'denied');
  const audit = (await stack.accounts.audit.page(ws, {})).entries.map((e) => e.action);
  for (const action of ['client_policy.changed', 'client.approved', 'client.denied'] as const) assert.ok(audit.includes(action), action);
});
