/**
 * svc-admin scim show|create-token|revoke-token (docs/contract.md "Operator interface"): the API's
 * operations through the management layer, for the workspace's owner; the token in the create
 * answer only; each change audited with actor service:svc-admin.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { connectRedis, createAccounts } from '@svc/accounts';
import { startRedis, type RedisFixture } from '@svc/testkit';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../../..');
let redis: RedisFixture;

before(async () => {
  redis = await startRedis();
});
after(() => redis.stop());

async function admin(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(resolve(root, 'scripts/node'), ['packages/svc-admin/src/main.ts', ...args, '--json'], {
    cwd: root,
    env: { ...process.env, REDIS_URL: redis.url, AUTH_URL: 'https://auth.example' },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

test('scim create-token, show and revoke-token act for the owner, audited; the token is in the create answer only', async () => {
  await admin('user', 'create', '--email', 'scim-owner@example.com');
  await admin('workspace', 'create', '--slug', 'scim-ws', '--owner', 'scim-owner@example.com', '--plan', 'TEAM');
  const made = await admin('scim', 'create-token', '--workspace', 'scim-ws');
  assert.match(String(made['token']), /^svc-scim-[0-9A-Za-z]{28}$/);
  assert.equal(made['endpoint'], 'https://auth.example/scim/v2/scim-ws');
  const shown = await admin('scim', 'show', '--workspace', 'scim-ws');
  assert.deepEqual(shown, {
    endpoint: 'https://auth.example/scim/v2/scim-ws',
    tokens: [{ id: made['id'], prefix: made['prefix'], created_at: made['created_at'] }],
    users: 0,
    groups: 0,
  });
  assert.deepEqual(await admin('scim', 'revoke-token', '--workspace', 'scim-ws', '--id', String(made['id'])), {
    id: made['id'],
    revoked: true,
  });
  assert.deepEqual((await admin('scim', 'show', '--workspace', 'scim-ws'))['tokens'], []);
  const client = connectRedis(redis.url);
  try {
    const entries = (
      await createAccounts(client, { pepper: 'unused-here-0123456789abcdef0123456789' }).audit.page('scim-ws', { limit: 10 })
    ).entries;
    assert.deepEqual(
      entries.filter((e) => e.action.startsWith('scim.')).map((e) => [e.action, e.actor]),
      [
        ['scim.token_revoked', 'service:svc-admin'],
        ['scim.token_created', 'service:svc-admin'],
      ],
    );
  } finally {
    client.disconnect();
  }
});
