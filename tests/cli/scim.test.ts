/**
 * `svc scim` (docs/cli.md): the owner makes a SCIM token (printed alone on stdout, once), sees the
 * tenant URL and the token's prefix, the token works there, and revoking it ends it; a missing id
 * is a usage error.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { BIN, runToEnd, tempDir } from './support.ts';

let stack: Stack;
let env: Record<string, string>;

before(async () => {
  stack = await startStack();
  const owner = await newPerson(stack, 'cli-scim');
  const personal = (await stack.accounts.keys.createUserKey({ userId: owner.user.id })).key;
  env = { SVC_API_KEY: personal, SVC_BASE_URL: stack.baseUrl, SVC_CONFIG_DIR: await tempDir('scim') };
});
after(() => stack?.close());

const svc = (...args: string[]) => runToEnd(BIN.svc, args, env);

test('scim: create-token prints the token alone once; show lists its prefix and the tenant URL; revoke-token ends it', async () => {
  const made = await svc('scim', 'create-token');
  assert.equal(made.code, 0, made.stderr);
  const token = made.stdout.trim();
  assert.match(token, /^svc-scim-[0-9A-Za-z]{28}$/);
  assert.match(made.stderr, /Copy it now: it is not shown again/);
  const endpoint = /tenant URL (\S+) /.exec(made.stderr)?.[1] ?? '';
  assert.equal((await fetch(`${endpoint}/Users`, { headers: { authorization: `Bearer ${token}` } })).status, 200);

  const show = await svc('scim', 'show', '--json');
  assert.equal(show.code, 0, show.stderr);
  const view = JSON.parse(show.stdout) as { endpoint: string; tokens: { id: string; prefix: string }[] };
  assert.equal(view.endpoint, endpoint);
  assert.deepEqual(
    view.tokens.map((t) => t.prefix),
    [`${token.slice(0, 13)}...`],
  );
  assert.ok(!show.stdout.includes(token));

  const missing = await svc('scim', 'revoke-token');
  assert.equal(missing.code, 2, missing.stderr);
  const revoked = await svc('scim', 'revoke-token', view.tokens[0]!.id);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.match(revoked.stdout, /revoked/);
  assert.equal((await fetch(`${endpoint}/Users`, { headers: { authorization: `Bearer ${token}` } })).status, 401);
  assert.match((await svc('scim', 'show')).stdout, /No SCIM token/);
});
