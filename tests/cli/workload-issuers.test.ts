/**
 * `svc workload-issuers` against the real stack (docs/workload-identity.md "Managing them"): the
 * owner trusts GitHub Actions for a repository from a terminal, lists it, is told what is wrong
 * with a rule too broad or unreadable, and removes it; each change is in the audit log.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { BIN, runToEnd, tempDir } from './support.ts';

let stack: Stack;
let owner: Awaited<ReturnType<typeof newPerson>>;
let env: Record<string, string>;

before(async () => {
  stack = await startStack();
  owner = await newPerson(stack, 'cli-wl');
  const personal = (await stack.accounts.keys.createUserKey({ userId: owner.user.id })).key;
  env = { SVC_API_KEY: personal, SVC_BASE_URL: stack.baseUrl, SVC_CONFIG_DIR: await tempDir('wl') };
});
after(() => stack?.close());

const svc = (...args: string[]) => runToEnd(BIN.svc, args, env);

test('workload-issuers: add GitHub Actions for a repository, list, refusals named, remove; audited', async () => {
  const { bot } = await stack.accounts.bots.create({ workspace: owner.user.workspace, name: 'ci' });
  const none = await svc('workload-issuers', 'list');
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stdout, /No workload issuers\. Trust GitHub Actions: svc workload-issuers add/);

  const added = await svc(
    'workload-issuers',
    'add',
    '--kind',
    'github-actions',
    '--rule',
    `${bot.id}=repository:acme/app,ref:refs/heads/*`,
  );
  assert.equal(added.code, 0, added.stderr);
  assert.match(
    added.stdout,
    /Workload issuer https:\/\/token\.actions\.githubusercontent\.com \(github-actions, id \S+\) trusted with 1 rule/,
  );
  const listed = await svc('workload-issuers', 'list');
  assert.match(listed.stdout, /^ID\s+KIND\s+ISSUER\s+AUDIENCE\s+RULES/);
  assert.match(listed.stdout, new RegExp(`github-actions.*${bot.id}=repository:acme/app,ref:refs/heads/\\*`));
  const json = JSON.parse((await svc('workload-issuers', 'list', '--json')).stdout) as { workload_issuers: { id: string }[] };
  const id = json.workload_issuers[0]!.id;

  const broad = await svc('workload-issuers', 'add', '--kind', 'github-actions', '--rule', `${bot.id}=workflow:deploy`);
  assert.notEqual(broad.code, 0);
  assert.match(broad.stderr, /must pin the owner/);
  const unreadable = await svc('workload-issuers', 'add', '--kind', 'github-actions', '--rule', 'just-a-name');
  assert.notEqual(unreadable.code, 0);
  assert.match(unreadable.stderr, /--rule: a rule is SERVICE_ACCOUNT=claim:pattern/);
  const kind = await svc('workload-issuers', 'add', '--kind', 'gitlab', '--rule', `${bot.id}=sub:x`);
  assert.match(kind.stderr, /--kind is one of github-actions, kubernetes, spiffe/);

  const removed = await svc('workload-issuers', 'remove', id);
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, new RegExp(`Workload issuer ${id} removed`));
  const audit = JSON.parse((await svc('audit', '--json')).stdout) as { entries: { action: string }[] };
  for (const a of ['workload_issuer.added', 'workload_issuer.removed'])
    assert.ok(
      audit.entries.some((e) => e.action === a),
      a,
    );
});
