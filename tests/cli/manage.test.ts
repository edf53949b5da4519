/**
 * `svc keys|requests|members|usage|audit` against the real stack (docs/cli.md "Managing a
 * project"): what a project owner does from a terminal with their personal key, each leaving its
 * audit entry, and what a newcomer reads when something is missing or refused; a service account's
 * OAuth client keys set from the terminal and used for a client-credentials token.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { BIN, runToEnd, tempDir } from './support.ts';

let stack: Stack;
let owner: Awaited<ReturnType<typeof newPerson>>;
let env: Record<string, string>;

before(async () => {
  stack = await startStack();
  // PRO: the owner's commands that find their workspace (GET /api/v1/me) or project send more
  // through the one personal key in a minute than FREE admits one client (15).
  owner = await newPerson(stack, 'cli-mgmt', { plan: 'PRO' });
  const personal = (await stack.accounts.keys.createUserKey({ userId: owner.user.id })).key;
  env = { SVC_API_KEY: personal, SVC_BASE_URL: stack.baseUrl, SVC_CONFIG_DIR: await tempDir('mgmt') };
});
// Unset when starting it failed: that failure is the one to read, not a TypeError here.
after(() => stack?.close());

const svc = (...args: string[]) => runToEnd(BIN.svc, args, env);

test('keys: create prints the key alone on stdout once; list, roll and revoke; the audit shows them', async () => {
  const created = await svc('keys', 'create', '--project', owner.slug, '--name', 'deploy', '--level', 'EDITOR', '--expires', '30d');
  assert.equal(created.code, 0, created.stderr);
  const key = created.stdout.trim();
  assert.match(key, /^svc-[0-9A-Za-z]{28}$/);
  assert.match(created.stderr, /Key "deploy" \(EDITOR\) created; it expires .*\nCopy it now: it is not shown again/);

  const list = await svc('keys', 'list', '--project', owner.slug);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^ID\s+NAME\s+LEVEL\s+KEY\s+EXPIRES\s+LAST USED\s+PER MIN\s+ALLOWED IPS\s+STATUS/);
  assert.match(list.stdout, /deploy\s+EDITOR\s+svc-/);
  assert.ok(!list.stdout.includes(key));
  const json = JSON.parse((await svc('keys', 'list', '--project', owner.slug, '--json')).stdout) as {
    keys: { id: string; name: string }[];
  };
  const id = json.keys.find((k) => k.name === 'deploy')!.id;

  const rolled = await svc('keys', 'roll', id, '--project', owner.slug, '--overlap', '1h');
  assert.equal(rolled.code, 0, rolled.stderr);
  assert.match(rolled.stderr, /the old one works until \d{4}-/);
  assert.notEqual(rolled.stdout.trim(), key);
  const revoked = await svc('keys', 'revoke', id, '--project', owner.slug);
  assert.match(revoked.stdout, new RegExp(`Key ${id} revoked`));

  const audit = await svc('audit', '--action', 'key.created');
  assert.equal(audit.code, 0, audit.stderr);
  assert.match(audit.stdout, /TIME\s+ACTOR\s+ACTION\s+TARGET/);
  assert.match(audit.stdout, new RegExp(`${owner.email}\\s+key\\.created`));
  const all = JSON.parse((await svc('audit', '--json')).stdout) as { entries: { action: string }[] };
  for (const a of ['key.created', 'key.rolled', 'key.revoked'])
    assert.ok(
      all.entries.some((e) => e.action === a),
      a,
    );
});

test('requests and members: approve at a level, add a member; usage reads the workspace', async () => {
  const asker = await newPerson(stack, 'cli-asker');
  const req = await stack.accounts.accessRequests.create(
    {
      project: owner.slug,
      requester: { type: 'user', id: asker.user.id, label: asker.email },
      requestedLevel: 'EDITOR',
      reason: 'docs',
    },
    { source: '192.0.2.1', requestId: 'test' },
  );
  const list = await svc('requests', 'list', '--project', owner.slug);
  assert.match(list.stdout, new RegExp(`${req.id}\\s+${asker.email}\\s+EDITOR\\s+pending`));
  assert.match(list.stdout, /Approve with: svc requests approve <id>/);
  const approved = await svc('requests', 'approve', req.id, '--project', owner.slug, '--level', 'VIEWER');
  assert.equal(approved.code, 0, approved.stderr);
  assert.match(approved.stdout, /approved at VIEWER/);
  const askerKey = (await stack.accounts.keys.createUserKey({ userId: asker.user.id })).key;
  const mine = await runToEnd(BIN.svc, ['requests', 'mine'], { ...env, SVC_API_KEY: askerKey });
  assert.equal(mine.code, 0, mine.stderr);
  assert.match(mine.stdout, /^PROJECT\s+ASKED\s+STATUS\s+GRANTED\s+ASKED AT\s+DECIDED AT\n/);
  // Times in a table read relative to now (docs/cli.md "What is printed").
  assert.match(mine.stdout, new RegExp(`${owner.slug}\\s+EDITOR\\s+approved\\s+VIEWER\\s+(just now|\\d+ \\w+ ago)`));
  const again = await svc('requests', 'deny', req.id, '--project', owner.slug);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /requests deny: This request was already approved\./);
  const decided = await svc('requests', 'list', '--project', owner.slug);
  assert.match(decided.stdout, /GRANTED\s+DECIDED BY/);
  assert.match(
    decided.stdout,
    new RegExp(`${req.id}\\s+${asker.email}\\s+EDITOR\\s+approved\\s+VIEWER\\s+\\S+@`),
    'the level granted and who decided',
  );

  const friend = await newPerson(stack, 'cli-friend');
  const added = await svc('members', 'add', friend.email, '--role', 'EDITOR', '--project', owner.slug);
  assert.equal(added.code, 0, added.stderr);
  const members = await svc('members', 'list', '--project', owner.slug);
  assert.match(members.stdout, new RegExp(`${friend.email}\\s+EDITOR`));

  // An address without a confirmed account is invited, not added (docs/management.md "Invitations").
  const invited = await svc('members', 'add', 'stranger-cli@example.com', '--role', 'VIEWER', '--project', owner.slug);
  assert.equal(invited.code, 0, invited.stderr);
  assert.match(invited.stdout, /stranger-cli@example\.com has no confirmed svc account yet: an invitation to be VIEWER was mailed/);
  const pending = await svc('members', 'list', '--project', owner.slug);
  const id = new RegExp(`stranger-cli@example\\.com\\s+VIEWER\\s+in \\d+ days\\s+(inv_\\S+)`).exec(pending.stdout)?.[1];
  assert.ok(id, pending.stdout);
  const cancelled = await svc('members', 'cancel', id, '--project', owner.slug);
  assert.equal(cancelled.code, 0, cancelled.stderr);
  assert.doesNotMatch((await svc('members', 'list', '--project', owner.slug)).stdout, /stranger-cli/);

  const usage = await svc('usage');
  assert.equal(usage.code, 0, usage.stderr);
  assert.match(
    usage.stdout,
    new RegExp(`Workspace ${owner.user.workspace}\\nThis minute: \\d+ of \\d+ requests\\nThis month:  \\d+ of \\d+ queries`),
  );
  const week = await svc('usage', '--days', '7');
  assert.equal(week.code, 0, week.stderr);
  assert.equal((week.stdout.match(/^\d{4}-\d{2}-\d{2}\s+\d+$/gm) ?? []).length, 7, week.stdout);
  assert.match(week.stdout, new RegExp(`^${new Date().toISOString().slice(0, 10)}\\s+\\d+$`, 'm'), 'today is the last day');
  const tooMany = await svc('usage', '--days', '31');
  assert.notEqual(tooMany.code, 0);
  assert.match(tooMany.stderr, /days must be a whole number from 1 to 30/);
});

test('what a newcomer reads: a missing option, a missing id, a refusal with its remedy', async () => {
  // The owner reaches one project: it is the one (docs/cli.md "The project").
  const onlyProject = await svc('keys', 'list');
  assert.equal(onlyProject.code, 0, onlyProject.stderr);
  const noName = await svc('keys', 'create', '--project', owner.slug);
  assert.equal(noName.code, 2);
  assert.match(noName.stderr, /Give --name, e\.g\. --name ci\./);
  const noId = await svc('keys', 'revoke', '--project', owner.slug);
  assert.match(noId.stderr, /Which key\? Give its id: svc keys revoke <id> --project <slug> \(ids: svc keys list\)\./);
  const viewer = (
    await stack.accounts.keys.createProjectKey({ project: owner.slug, workspace: owner.user.workspace, level: 'VIEWER', name: 'v' })
  ).key;
  const refused = await runToEnd(BIN.svc, ['keys', 'create', '--project', owner.slug, '--name', 'x'], { ...env, SVC_API_KEY: viewer });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /keys create: Your role on this project \(VIEWER\) cannot create keys\.\nAsk the project's admins/);
  assert.equal(refused.stdout, '');
});

test("a key's own limit, usage per key and per tool, and service accounts from the terminal", async () => {
  const created = await svc('keys', 'create', '--project', owner.slug, '--name', 'ci', '--rate-limit', '2');
  assert.equal(created.code, 0, created.stderr);
  const ciKey = created.stdout.trim();
  const list = JSON.parse((await svc('keys', 'list', '--project', owner.slug, '--json')).stdout) as {
    keys: { id: string; name: string; rate_limit: number | null }[];
  };
  const row = list.keys.find((k) => k.name === 'ci')!;
  assert.equal(row.rate_limit, 2);
  const callTool = () =>
    fetch(`${stack.baseUrl}/mcp/${owner.slug}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': ciKey },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_help', arguments: {} } }),
    }).then((r) => r.status);
  assert.deepEqual([await callTool(), await callTool(), await callTool()], [200, 200, 429]);
  const lifted = await svc('keys', 'limit', row.id, 'none', '--project', owner.slug);
  assert.equal(lifted.code, 0, lifted.stderr);
  assert.match(lifted.stdout, /now has the plan's limit alone/);
  const badLimit = await svc('keys', 'limit', row.id, 'lots', '--project', owner.slug);
  assert.equal(badLimit.code, 1);
  assert.match(badLimit.stderr, /keys limit: A key's limit is a whole number of requests per minute from 1 to \d+/);

  const usage = await svc('usage');
  assert.equal(usage.code, 0, usage.stderr);
  assert.match(usage.stdout, /KEY OR PERSON\s+KEY\s+PROJECT\s+REQUESTS THIS MONTH/);
  assert.match(usage.stdout, new RegExp(`\\nci\\s+svc-\\S+\\s+${owner.slug}\\s+2\\n`), usage.stdout);
  assert.match(usage.stdout, /TOOL\s+CALLS THIS MONTH\nsvc_help\s+2/);

  const made = await svc('service-accounts', 'create', '--name', 'deployer');
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout.trim(), /^svc-bot-/);
  const id = /\((bot_[^)]+)\)/.exec(made.stderr)?.[1];
  assert.ok(id, made.stderr);
  const granted = await svc('service-accounts', 'grant', id, '--project', owner.slug, '--level', 'EDITOR');
  assert.equal(granted.code, 0, granted.stderr);
  const accounts = await svc('service-accounts', 'list');
  assert.match(accounts.stdout, new RegExp(`${id}\\s+deployer\\s+svc-bot-\\S+\\s+${owner.slug}:EDITOR`));
  const rotated = await svc('service-accounts', 'rotate', id, '--overlap', '1h');
  assert.equal(rotated.code, 0, rotated.stderr);
  assert.match(rotated.stderr, /the old one works until \d{4}-/);
  assert.equal((await svc('service-accounts', 'revoke', id)).code, 0);
  // A revoked service account stays revoked.
  const again = await svc('service-accounts', 'rotate', id);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /deployer is revoked: it gets no new key/);
  assert.match((await svc('service-accounts', 'list')).stdout, new RegExp(`${id}\\s+deployer\\s+-\\s+${owner.slug}:EDITOR\\s+revoked`));
});

test('keys: disable and enable, a note, an IP allow-list and the filtered list from the terminal', async () => {
  const created = await svc(
    'keys',
    'create',
    '--project',
    owner.slug,
    '--name',
    'office',
    '--note',
    'for the office',
    '--allow-ip',
    '127.0.0.1,10.0.0.0/8',
  );
  assert.equal(created.code, 0, created.stderr);
  const list = async (...args: string[]) =>
    (
      JSON.parse((await svc('keys', 'list', '--project', owner.slug, '--json', ...args)).stdout) as {
        keys: { id: string; name: string; status: string; note: string; allowed_ips: string[] }[];
      }
    ).keys;
  const row = (await list('--search', 'OFFICE'))[0]!;
  assert.deepEqual([row.name, row.note, row.allowed_ips], ['office', 'for the office', ['127.0.0.1/32', '10.0.0.0/8']]);

  const disabled = await svc('keys', 'disable', row.id, '--project', owner.slug);
  assert.equal(disabled.code, 0, disabled.stderr);
  assert.match(disabled.stdout, /disabled; gateways refuse it within a second/);
  assert.deepEqual(
    (await list('--status', 'disabled')).map((k) => k.id),
    [row.id],
  );
  assert.equal((await svc('keys', 'enable', row.id, '--project', owner.slug)).code, 0);
  assert.equal((await list('--status', 'disabled')).length, 0);

  const noted = await svc('keys', 'note', row.id, 'rotate', 'in', 'March', '--project', owner.slug);
  assert.equal(noted.code, 0, noted.stderr);
  assert.equal((await list('--search', 'march'))[0]?.note, 'rotate in March');
  const ips = await svc('keys', 'allow-ips', row.id, '2001:db8::/32', '--project', owner.slug);
  assert.match(ips.stdout, /accepted only from 2001:db8::\/32/);
  const bad = await svc('keys', 'allow-ips', row.id, '300.1.1.1', '--project', owner.slug);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /"300\.1\.1\.1" is not an IPv4 or IPv6 address or CIDR block/);
  assert.match((await svc('keys', 'allow-ips', row.id, 'anywhere', '--project', owner.slug)).stdout, /accepted from any address/);
  const wrong = await svc('keys', 'list', '--project', owner.slug, '--status', 'sleeping');
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /The status must be active, expiring, expired, revoked, disabled or all/);

  // A rolled key says what replaced it; a revoked one leaves the default list.
  const rolled = await svc('keys', 'roll', row.id, '--project', owner.slug, '--overlap', '1h');
  assert.equal(rolled.code, 0, rolled.stderr);
  const table = await svc('keys', 'list', '--project', owner.slug, '--search', 'office');
  assert.match(table.stdout, /replaced by key_/);
  assert.equal((await svc('keys', 'revoke', row.id, '--project', owner.slug)).code, 0);
  assert.ok(!(await list()).some((k) => k.id === row.id));
  assert.ok((await list('--status', 'revoked')).some((k) => k.id === row.id));
});

test("a service account's OAuth client keys from the terminal: set-keys, keys, a token with them, remove-keys", async () => {
  const made = await svc('service-accounts', 'create', '--name', 'keyless-ci');
  const id = /\((bot_[^)]+)\)/.exec(made.stderr)?.[1];
  assert.ok(id, made.stderr);
  assert.equal((await svc('service-accounts', 'grant', id, '--project', owner.slug, '--level', 'VIEWER')).code, 0);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const file = join(await tempDir('jwks'), 'jwks.json');
  await writeFile(file, JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'ci-1', alg: 'ES256' }] }));

  const neither = await svc('service-accounts', 'set-keys', id);
  assert.equal(neither.code, 2, neither.stderr);
  assert.match(neither.stderr, /Give one of --jwks-file/);
  const set = await svc('service-accounts', 'set-keys', id, '--jwks-file', file);
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stdout, new RegExp(`client_id\\s+${id}`));
  assert.match(set.stdout, new RegExp(`token endpoint\\s+${stack.authUrl}/api/oauth/token`));
  assert.match(set.stdout, /keys\s+ci-1/);
  const shown = JSON.parse((await svc('service-accounts', 'keys', id, '--json')).stdout) as { jwks: { keys: { kid: string }[] } };
  assert.deepEqual(
    shown.jwks.keys.map((k) => k.kid),
    ['ci-1'],
  );

  // What the keys are for: a client-credentials token signed with the private key calls a tool.
  const token = () => clientCredentialsToken(id, privateKey);
  const issued = await token();
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  const called = await fetch(`${stack.baseUrl}/mcp/${owner.slug}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${String(issued.body['access_token'])}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_help', arguments: {} } }),
  });
  assert.equal(called.status, 200);

  const removed = await svc('service-accounts', 'remove-keys', id);
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, /stops authenticating now/);
  const refused = await token();
  assert.equal(refused.status, 401);
  assert.equal(refused.body['error'], 'invalid_client');
  const audit = JSON.parse((await svc('audit', '--json')).stdout) as { entries: { action: string }[] };
  for (const a of ['service_account.client_keys_set', 'service_account.client_keys_removed'])
    assert.ok(
      audit.entries.some((e) => e.action === a),
      a,
    );
});

/** A client-credentials token request authenticated with an ES256 client assertion (RFC 7523 §2.2). */
async function clientCredentialsToken(clientId: string, key: KeyObject) {
  const now = Math.floor(Date.now() / 1000);
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const signed = `${b64({ alg: 'ES256', typ: 'JWT', kid: 'ci-1' })}.${b64({ iss: clientId, sub: clientId, aud: stack.authUrl, iat: now, exp: now + 60, jti: randomUUID() })}`;
  const signature = sign('sha256', Buffer.from(signed), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  const res = await fetch(`${stack.authUrl}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: `${signed}.${signature}`,
      resource: `${stack.baseUrl}/mcp/${owner.slug}`,
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test('webhooks: create prints the signing secret alone once; list, test, deliveries, rotate, delete; a wrong event type is refused naming it', async () => {
  // Its own workspace: the calls above have spent much of the shared owner's management minute.
  const hooksOwner = await newPerson(stack, 'cli-hooks');
  const hooksKey = (await stack.accounts.keys.createUserKey({ userId: hooksOwner.user.id })).key;
  const hooksEnv = { ...env, SVC_API_KEY: hooksKey, SVC_CONFIG_DIR: await tempDir('hooks') };
  const svc = (...args: string[]) => runToEnd(BIN.svc, args, hooksEnv);
  const made = await svc('webhooks', 'create', '--url', 'https://hooks.example/svc', '--events', 'key.created,quota.warning');
  assert.equal(made.code, 0, made.stderr);
  const secret = made.stdout.trim();
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const id = /endpoint (wh_\S+) created/.exec(made.stderr)?.[1];
  assert.ok(id, made.stderr);
  assert.match(made.stderr, /Copy it now: it is not shown again/);
  const list = await svc('webhooks', 'list');
  assert.equal(list.code, 0, list.stderr);
  assert.match(
    list.stdout,
    new RegExp(`^ID\\s+URL\\s+EVENTS\\s+STATUS\\s+LAST ERROR\\n${id}\\s+https://hooks.example/svc\\s+key.created,quota.warning\\s+enabled`),
  );
  assert.ok(!list.stdout.includes(secret));
  assert.match((await svc('webhooks', 'test', id)).stdout, /webhook.test event is on its way/);
  const deliveries = await svc('webhooks', 'deliveries', id, '--json');
  assert.equal(deliveries.code, 0, deliveries.stderr);
  assert.ok(Array.isArray((JSON.parse(deliveries.stdout) as { deliveries: unknown[] }).deliveries));
  const disabled = await svc('webhooks', 'update', id, '--disable');
  assert.match(disabled.stdout, /disabled\./);
  const rotated = await svc('webhooks', 'rotate', id);
  assert.equal(rotated.code, 0, rotated.stderr);
  assert.match(rotated.stdout.trim(), /^whsec_/);
  assert.notEqual(rotated.stdout.trim(), secret);
  assert.match(rotated.stderr, /the old one also signs until \d{4}-/);
  const bad = await svc('webhooks', 'create', '--url', 'https://hooks.example/x', '--events', 'key.exploded');
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /webhooks create: .*events/);
  const unknown = await svc('webhooks', 'delete', 'wh_nope');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no such webhook endpoint/);
  assert.match((await svc('webhooks', 'delete', id)).stdout, new RegExp(`Webhook endpoint ${id} removed`));
  assert.match((await svc('webhooks', 'list')).stdout, /No webhook endpoints/);
});
