/** svc-admin as operators and scripts use it: every command with --json prints one JSON object. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { createAccounts, TRUSTED_ISSUER_LIMITS } from '@svc/accounts';
import { DEV_KEY_PEPPER as DEV_PEPPER, loadConfig } from '@svc/config';
import { createSsoStore } from '@svc/sso';
import { SAML_TEST_CERT, samlTestMetadata, startRedis, type RedisFixture } from '@svc/testkit';
import { createUpstreams } from '@svc/upstreams';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../../..');
let redis: RedisFixture;

before(async () => {
  redis = await startRedis();
});
after(() => redis.stop());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- svc-admin's JSON output: its shape is what the assertions check
type Output = any;

async function admin(...args: string[]): Promise<Output> {
  return adminWith({}, ...args);
}

/** svc-admin with `env` added to its environment. */
async function adminWith(env: Record<string, string>, ...args: string[]): Promise<Output> {
  const { stdout } = await run(resolve(root, 'scripts/node'), ['packages/svc-admin/src/main.ts', ...args, '--json'], {
    cwd: root,
    env: { ...process.env, REDIS_URL: redis.url, ...env },
  });
  return oneObject(stdout);
}

/** svc-admin with `input` on standard input; its JSON object and what it wrote to stderr. */
function adminWithInput(input: string, ...args: string[]): Promise<{ out: Output; stderr: string }> {
  return new Promise((ok, fail) => {
    const child = execFile(
      resolve(root, 'scripts/node'),
      ['packages/svc-admin/src/main.ts', ...args, '--json'],
      { cwd: root, env: { ...process.env, REDIS_URL: redis.url } },
      (err, stdout, stderr) => (err ? fail(new Error(`${err.message}: ${stderr}`)) : ok({ out: oneObject(stdout), stderr })),
    );
    child.stdin?.end(input);
  });
}

function oneObject(stdout: string): Output {
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 1, `exactly one line: ${stdout}`);
  return JSON.parse(lines[0]!);
}

async function adminFails(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    await run(resolve(root, 'scripts/node'), ['packages/svc-admin/src/main.ts', ...args, '--json'], {
      cwd: root,
      env: { ...process.env, REDIS_URL: redis.url },
    });
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return e;
  }
  assert.fail('expected a failure');
}

test('every command of the operator interface', async () => {
  const u = await admin('user', 'create', '--email', 'Owner@Example.com');
  assert.deepEqual(Object.keys(u).sort(), ['email', 'id', 'passwordSet', 'workspace']);
  assert.equal(u.passwordSet, false);
  assert.equal(u.email, 'owner@example.com');
  assert.match(u.id, /^user_/);
  assert.deepEqual(await admin('workspace', 'create', '--slug', 'team-a', '--owner', 'owner@example.com', '--plan', 'TEAM'), {
    slug: 'team-a',
    plan: 'TEAM',
  });
  assert.deepEqual(await admin('workspace', 'set-plan', '--slug', 'team-a', '--plan', 'PRO', '--agents', 'on'), {
    slug: 'team-a',
    plan: 'PRO',
    agents: true,
  });
  assert.deepEqual(await admin('project', 'create', '--slug', 'docs', '--workspace', 'team-a'), { slug: 'docs', workspace: 'team-a' });
  await admin('user', 'create', '--email', 'member@example.com');
  assert.deepEqual(await admin('member', 'set', '--project', 'docs', '--email', 'member@example.com', '--role', 'VIEWER'), {
    project: 'docs',
    email: 'member@example.com',
    role: 'VIEWER',
  });
  const k = await admin('key', 'create', '--project', 'docs', '--level', 'VIEWER', '--name', 'ci', '--expires-in', '3600');
  // The API's answer to POST /api/v1/projects/{project}/keys: one shape whichever door made it.
  assert.deepEqual(Object.keys(k).sort(), ['expires_at', 'id', 'key', 'level', 'name', 'rate_limit']);
  assert.match(k.key, /^svc-[0-9A-Za-z]{28}$/);
  assert.ok(Date.parse(k.expires_at) > Date.now());
  // The same audit entry as the API's createKey, the operator as its actor.
  const made = (await createAccounts(redis.client, { pepper: DEV_PEPPER }).audit.page('team-a')).entries.find(
    (e) => e.action === 'key.created',
  );
  assert.equal(made?.actor, 'service:svc-admin');
  assert.equal(made?.source, 'svc-admin');
  assert.match(made?.target ?? '', new RegExp(`^key:${k.id} \\(svc-\\w{4}\\.\\.\\., "ci"\\)$`));
  const misnamed = await adminFails('key', 'create', '--project', 'docs', '--level', 'VIEWER', '--name', 'bad\u202ename');
  assert.equal(JSON.parse(misnamed.stdout).error.code, 'invalid_params', "the API's name check");
  const list = await admin('key', 'list', '--project', 'docs');
  assert.equal(list.keys.length, 1);
  assert.deepEqual(Object.keys(list.keys[0]).sort(), ['expires_at', 'id', 'last_used_at', 'level', 'name', 'prefix', 'revoked']);
  assert.ok(!JSON.stringify(list).includes(k.key), 'a listing never shows the key');
  assert.deepEqual(await admin('key', 'revoke', '--id', k.id), { id: k.id, revoked: true });
  const uk = await admin('user-key', 'create', '--email', 'member@example.com');
  assert.match(uk.key, /^svc-user-/);
  assert.ok(Math.abs(Date.parse(uk.expires_at) - Date.now() - 30 * 86400_000) < 60_000);
  const bot = await admin('bot', 'create', '--workspace', 'team-a', '--name', 'ci-bot');
  assert.match(bot.key, /^svc-bot-/);
  assert.deepEqual(await admin('bot', 'grant', '--id', bot.id, '--project', 'docs', '--level', 'VIEWER'), {
    id: bot.id,
    project: 'docs',
    level: 'VIEWER',
  });
  const rotated = await admin('bot', 'rotate', '--id', bot.id, '--overlap', '1h');
  assert.match(rotated.key, /^svc-bot-/);
  assert.ok(Math.abs(Date.parse(rotated.old_key_until) - Date.now() - 3_600_000) < 60_000);
  assert.deepEqual(await admin('bot', 'revoke', '--id', bot.id), { id: bot.id, revoked: true });
  // A revoked service account stays revoked.
  const again = await adminFails('bot', 'rotate', '--id', bot.id);
  assert.equal(JSON.parse(again.stdout).error.code, 'conflict');
  assert.match(again.stderr, /ci-bot .* is revoked: it gets no new key/);
  assert.deepEqual(await admin('access-request', 'list', '--project', 'docs'), { requests: [] });
  assert.match((await admin('legacy-key', 'create', '--project', 'docs')).key, /^rlm_pk_/);
  assert.match((await admin('legacy-key', 'create', '--team', 'team-a')).key, /^rlm_team_/);
});

test('list commands, and expiry in human units', async () => {
  await admin('user', 'create', '--email', 'lister@example.com');
  await admin('workspace', 'create', '--slug', 'team-l', '--owner', 'lister@example.com', '--plan', 'TEAM');
  await admin('project', 'create', '--slug', 'list-b', '--workspace', 'team-l');
  await admin('project', 'create', '--slug', 'list-a', '--workspace', 'team-l');
  const projects = await admin('project', 'list', '--workspace', 'team-l');
  assert.equal(projects.plan, 'TEAM');
  assert.deepEqual(
    projects.projects.map((p: { slug: string }) => p.slug),
    ['list-a', 'list-b'],
  );
  await admin('user', 'create', '--email', 'viewer-l@example.com');
  await admin('member', 'set', '--project', 'list-a', '--email', 'viewer-l@example.com', '--role', 'VIEWER');
  const members = await admin('member', 'list', '--project', 'list-a');
  assert.equal(members.owner, 'lister@example.com');
  assert.deepEqual(
    members.members.map((m: { email: string; role: string }) => [m.email, m.role]),
    [['viewer-l@example.com', 'VIEWER']],
  );
  const bot = await admin('bot', 'create', '--workspace', 'team-l', '--name', 'deployer');
  await admin('bot', 'grant', '--id', bot.id, '--project', 'list-b', '--level', 'EDITOR');
  assert.deepEqual(
    (await admin('bot', 'list', '--workspace', 'team-l')).bots.map((b: { name: string; grants: unknown }) => [b.name, b.grants]),
    [['deployer', { 'list-b': 'EDITOR' }]],
  );

  for (const [text, seconds] of [
    ['30d', 30 * 86400],
    ['12h', 12 * 3600],
    ['90m', 90 * 60],
    ['2w', 14 * 86400],
    ['3600', 3600],
  ] as const) {
    const k = await admin('key', 'create', '--project', 'list-a', '--level', 'VIEWER', '--name', text, '--expires-in', text);
    assert.ok(Math.abs(Date.parse(k.expires_at) - Date.now() - seconds * 1000) < 60_000, `${text}: ${k.expires_at}`);
  }
  assert.equal(
    (await admin('key', 'create', '--project', 'list-a', '--level', 'VIEWER', '--name', 'forever', '--expires-in', 'never')).expires_at,
    null,
  );
  for (const bad of ['0d', '30x', '-1d', '3651d', 'soon']) {
    const r = await adminFails('key', 'create', '--project', 'list-a', '--level', 'VIEWER', '--name', 'bad', '--expires-in', bad);
    assert.equal(JSON.parse(r.stdout).error.code, 'usage', bad);
    assert.match(r.stderr, /--expires-in ".*" must be a positive number with a unit, e\.g\. 90m, 12h, 30d or 4w/, bad);
  }
});

test('passwords come from standard input or a prompt, never from the command line', async () => {
  const accounts = createAccounts(redis.client, { pepper: DEV_PEPPER });
  const piped = await adminWithInput(
    'correct horse battery staple\n',
    'user',
    'create',
    '--email',
    'piped@example.com',
    '--password-stdin',
  );
  assert.equal(piped.out.passwordSet, true);
  assert.ok(await accounts.users.verifyPassword('piped@example.com', 'correct horse battery staple'), 'the piped password signs in');

  const argv = await adminWithInput('', 'user', 'create', '--email', 'argv@example.com', '--password', 'hunter2-on-argv');
  assert.equal(argv.out.passwordSet, false, 'the command-line value is not used');
  assert.match(argv.stderr, /--password on the command line is ignored/);
  assert.ok(!argv.stderr.includes('hunter2-on-argv'), 'the value is not echoed');
  assert.equal(await accounts.users.verifyPassword('argv@example.com', 'hunter2-on-argv'), null);
  assert.equal(await accounts.users.verifyPassword('argv@example.com', ''), null, 'an account without a password never signs in');

  const set = await adminWithInput('another good password\n', 'user', 'set-password', '--email', 'argv@example.com', '--password-stdin');
  assert.deepEqual(set.out, { email: 'argv@example.com', passwordSet: true });
  assert.ok(await accounts.users.verifyPassword('argv@example.com', 'another good password'));
  await assert.rejects(
    adminWithInput('short\n', 'user', 'set-password', '--email', 'argv@example.com', '--password-stdin'),
    /at least 12 characters/,
  );
});

test('errors are one JSON object on stdout, a message on stderr, exit 1', async () => {
  const dup = await adminFails('workspace', 'create', '--slug', 'x', '--owner', 'nobody@example.com', '--plan', 'FREE');
  assert.equal(dup.code, 1);
  assert.equal(JSON.parse(dup.stdout).error.code, 'not_found');
  assert.match(dup.stderr, /no user with email nobody@example.com/);
  const bad = await adminFails('key', 'create', '--project', 'docs', '--level', 'OWNER', '--name', 'x');
  assert.match(JSON.parse(bad.stdout).error.message, /--level must be VIEWER, EDITOR or ADMIN/);
  const unknown = await adminFails('frobnicate', 'now');
  assert.equal(JSON.parse(unknown.stdout).error.code, 'usage');
});

test('pepper status: the live keys that still need the previous pepper, until each is used', async () => {
  const NEW = 'a-new-pepper-of-at-least-thirty-two-characters';
  await admin('user', 'create', '--email', 'pepper@example.com');
  await admin('workspace', 'create', '--slug', 'team-p', '--owner', 'pepper@example.com', '--plan', 'TEAM');
  await admin('project', 'create', '--slug', 'pepper-a', '--workspace', 'team-p');
  const made = await admin('key', 'create', '--project', 'pepper-a', '--level', 'VIEWER', '--name', 'before');
  const status = async () => {
    const { stdout } = await run(resolve(root, 'scripts/node'), ['packages/svc-admin/src/main.ts', 'pepper', 'status', '--json'], {
      cwd: root,
      env: { ...process.env, REDIS_URL: redis.url, KEY_PEPPER: NEW, KEY_PEPPER_PREVIOUS: DEV_PEPPER },
    });
    return oneObject(stdout);
  };
  const before = await status();
  assert.equal(before.previous_needed, true);
  assert.ok(before.waiting_keys.some((k: { id: string }) => k.id === made.id));
  // The key is presented once to a service holding both peppers: it is re-hashed.
  const rotating = createAccounts(redis.client, { pepper: NEW, previousPepper: DEV_PEPPER });
  assert.ok(await rotating.keys.verify(made.key));
  const after = await status();
  assert.ok(!after.waiting_keys.some((k: { id: string }) => k.id === made.id));
  assert.equal(after.live_keys, after.under_current + after.waiting);
});

test('accounts the operator creates are confirmed; user confirm-email confirms one made by sign-up, and only then may it get a personal key', async () => {
  const accounts = createAccounts(redis.client, { pepper: DEV_PEPPER });
  await admin('user', 'create', '--email', 'vouched@example.com');
  assert.ok((await accounts.users.findByEmail('vouched@example.com'))?.emailVerifiedAt, 'the operator vouches for the address');
  const signedUp = await accounts.users.create({ email: 'signed-up@example.com' });
  assert.equal(signedUp.emailVerifiedAt, null);
  const refused = await adminFails('user-key', 'create', '--email', 'signed-up@example.com');
  assert.match(JSON.parse(refused.stdout).error.message, /not confirmed.*user confirm-email --email signed-up@example\.com/);
  assert.deepEqual(await accounts.keys.listForUser(signedUp.id), [], 'no key was made');
  assert.deepEqual(await admin('user', 'confirm-email', '--email', 'Signed-Up@example.com'), {
    email: 'signed-up@example.com',
    emailConfirmed: true,
  });
  assert.ok((await accounts.users.get(signedUp.id))?.emailVerifiedAt);
  assert.match((await admin('user-key', 'create', '--email', 'signed-up@example.com')).key, /^svc-user-/);
});

test('second factor: the workspace policy switched, and a person reset, each audited', async () => {
  await admin('user', 'create', '--email', 'mfa-owner@example.com');
  await admin('workspace', 'create', '--slug', 'mfa-ws', '--owner', 'mfa-owner@example.com', '--plan', 'TEAM');
  assert.deepEqual(await admin('workspace', 'factor-policy', '--slug', 'mfa-ws'), { slug: 'mfa-ws', required: false });
  assert.deepEqual(await admin('workspace', 'factor-policy', '--slug', 'mfa-ws', '--required', 'on'), { slug: 'mfa-ws', required: true });
  const bad = await adminFails('workspace', 'factor-policy', '--slug', 'mfa-ws', '--required', 'yes');
  assert.equal(JSON.parse(bad.stdout).error.code, 'usage');
  const accounts = createAccounts(redis.client, { pepper: DEV_PEPPER });
  const person = await accounts.users.create({ email: 'mfa-lost@example.com', emailVerified: true });
  await accounts.factors.beginTotp(person.id, 'JBSWY3DPEHPK3PXP');
  assert.ok(Array.isArray(await accounts.factors.confirmTotp(person.id, 1)));
  assert.equal(await accounts.factors.hasAny(person.id), true);
  assert.deepEqual(await admin('user', 'reset-factors', '--email', 'mfa-lost@example.com'), { email: 'mfa-lost@example.com', reset: true });
  assert.equal(await accounts.factors.hasAny(person.id), false);
  const actions = async (ws: string) => (await accounts.audit.page(ws)).entries.map((e) => `${e.action} ${e.actor}`);
  assert.ok((await actions('mfa-ws')).includes('factor.policy_changed service:svc-admin'));
  assert.ok((await actions(person.workspace)).includes('factor.reset service:svc-admin'));
});

test('sso: show, provider, policy and domain claim / verify / release act for the owner, audited; the secret is read from stdin and sealed', async () => {
  const SECRET = 'operator-typed-secret-91c2';
  await admin('user', 'create', '--email', 'sso-owner@example.com');
  await admin('workspace', 'create', '--slug', 'team-sso', '--owner', 'sso-owner@example.com', '--plan', 'TEAM');
  assert.deepEqual(await admin('sso', 'show', '--workspace', 'team-sso'), {
    provider: null,
    policy: { defaultRole: 'VIEWER', required: false, groupRoles: [] },
    domains: [],
  });
  const { out } = await adminWithInput(
    `${SECRET}\n`,
    'sso',
    'provider',
    '--workspace',
    'team-sso',
    '--issuer',
    'https://idp.example.com',
    '--client-id',
    'svc',
    '--secret-stdin',
  );
  assert.deepEqual(out.provider, { kind: 'oidc', issuer: 'https://idp.example.com', clientId: 'svc' });
  assert.ok(!JSON.stringify(out).includes(SECRET), 'the secret is never printed');
  assert.equal(
    await createSsoStore(redis.client, loadConfig({ ...process.env, REDIS_URL: redis.url }).cookieKeys).secret('team-sso'),
    SECRET,
    'sealed under COOKIE_KEYS',
  );

  const claim = await admin('sso', 'domain', 'claim', '--workspace', 'team-sso', '--domain', 'Corp.Example');
  assert.equal(claim.domain, 'corp.example');
  assert.equal(claim.record.name, '_svc-sso.corp.example');
  assert.match(claim.record.value, /^svc-sso=/);
  const policy = await admin('sso', 'policy', '--workspace', 'team-sso', '--default-role', 'editor', '--groups', 'eng=ADMIN,ops=viewer');
  assert.deepEqual(policy.policy, {
    defaultRole: 'EDITOR',
    required: false,
    groupRoles: [
      { group: 'eng', role: 'ADMIN' },
      { group: 'ops', role: 'VIEWER' },
    ],
  });
  // Requiring SSO needs a proven domain: refused, naming the option.
  const early = await adminFails('sso', 'policy', '--workspace', 'team-sso', '--default-role', 'VIEWER', '--required', 'on');
  assert.equal(early.code, 1);
  assert.match(JSON.parse(early.stdout).error.message, /--required: Prove a domain/);
  const bad = await adminFails('sso', 'provider', '--workspace', 'team-sso', '--issuer', 'not a url', '--client-id', 'svc');
  assert.match(JSON.parse(bad.stdout).error.message, /--issuer/);
  const unclaimed = await adminFails('sso', 'domain', 'verify', '--workspace', 'team-sso', '--domain', 'other.example');
  assert.match(JSON.parse(unclaimed.stdout).error.message, /not claimed/);
  assert.deepEqual(await admin('sso', 'domain', 'release', '--workspace', 'team-sso', '--domain', 'corp.example'), {
    domain: 'corp.example',
    released: true,
  });
  assert.deepEqual((await admin('sso', 'show', '--workspace', 'team-sso')).domains, []);

  const accounts = createAccounts(redis.client, { pepper: DEV_PEPPER });
  const entries = (await accounts.audit.page('team-sso', { limit: 100 })).entries;
  assert.deepEqual(entries.map((e) => e.action).sort(), [
    'sso.configured',
    'sso.domain_claimed',
    'sso.domain_released',
    'sso.policy_changed',
  ]);
  assert.ok(entries.every((e) => e.actor === 'svc-admin' && e.source === 'svc-admin'));
  assert.ok(!JSON.stringify(entries).includes(SECRET), 'no audit entry holds the secret');
});

test('sso saml: the IdP by its metadata file or by fields, judged as the dashboard and API judge it, audited; the SP to register shown', async () => {
  await admin('user', 'create', '--email', 'saml-owner@example.com');
  await admin('workspace', 'create', '--slug', 'team-saml', '--owner', 'saml-owner@example.com', '--plan', 'TEAM');
  const dir = await mkdtemp(join(tmpdir(), 'svc-admin-saml-'));
  const metadata = join(dir, 'idp.xml');
  await writeFile(metadata, samlTestMetadata('https://idp.example.com/saml', 'https://idp.example.com/saml/sso'));
  const out = await admin('sso', 'saml', '--workspace', 'team-saml', '--metadata-file', metadata, '--groups-attribute', 'memberOf');
  assert.equal(out.provider.kind, 'saml');
  assert.equal(out.provider.issuer, 'https://idp.example.com/saml');
  assert.equal(out.provider.saml.ssoUrl, 'https://idp.example.com/saml/sso');
  assert.equal(out.provider.saml.groupsAttribute, 'memberOf');
  assert.match(out.provider.saml.certificates[0].sha256, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  assert.match(out.provider.saml.serviceProvider.acsUrl, /\/sso\/saml\/team-saml\/acs$/);
  // By fields: the certificate file, and the ones saved are kept when none is given.
  const pem = join(dir, 'idp.pem');
  await writeFile(pem, SAML_TEST_CERT);
  const fields = ['--workspace', 'team-saml', '--entity-id', 'https://idp2.example.com', '--sso-url', 'https://idp2.example.com/sso'];
  assert.equal((await admin('sso', 'saml', ...fields, '--certificate-file', pem)).provider.issuer, 'https://idp2.example.com');
  assert.equal((await admin('sso', 'saml', ...fields)).provider.saml.certificates.length, 1);
  // Refusals name the option at fault.
  const bad = [
    [['--metadata-file', pem], /--metadata-file: .*not SAML metadata/],
    [['--entity-id', 'x', '--sso-url', 'not a url'], /--sso-url/],
    [['--metadata-file', join(dir, 'missing.xml')], /--metadata-file: cannot read/],
  ] as const;
  for (const [args, problem] of bad) {
    const refused = await adminFails('sso', 'saml', '--workspace', 'team-saml', ...args);
    assert.match(JSON.parse(refused.stdout).error.message, problem);
  }
  await writeFile(join(dir, 'bomb.xml'), '<!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>');
  const bomb = await adminFails('sso', 'saml', '--workspace', 'team-saml', '--metadata-file', join(dir, 'bomb.xml'));
  assert.match(JSON.parse(bomb.stdout).error.message, /must not hold a document type/);
  const accounts = createAccounts(redis.client, { pepper: DEV_PEPPER });
  const configured = (await accounts.audit.page('team-saml', { limit: 100 })).entries.filter((e) => e.action === 'sso.configured');
  assert.equal(configured.length, 3);
  assert.equal(configured.at(-1)?.detail?.['kind'], 'saml');
});

test('trusted-issuer add|list|remove: a JWK Set file or a JWKS URL, at most TRUSTED_ISSUER_LIMITS.maxIssuers, audited', async () => {
  await admin('user', 'create', '--email', 'idp-owner@example.com');
  await admin('workspace', 'create', '--slug', 'idp-ws', '--owner', 'idp-owner@example.com', '--plan', 'TEAM');
  const file = join(await mkdtemp(join(tmpdir(), 'svc-admin-')), 'jwks.json');
  const jwk = { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid: 'idp-1' };
  await writeFile(file, JSON.stringify({ keys: [jwk] }));
  const added = await admin('trusted-issuer', 'add', '--workspace', 'idp-ws', '--issuer', 'https://idp.example', '--jwks-file', file);
  assert.equal(added.issuer, 'https://idp.example');
  assert.deepEqual(added.jwks.keys[0].kid, 'idp-1');
  for (let i = 1; i < TRUSTED_ISSUER_LIMITS.maxIssuers; i++)
    await admin(
      'trusted-issuer',
      'add',
      '--workspace',
      'idp-ws',
      '--issuer',
      `https://idp${i}.example`,
      '--jwks-uri',
      `https://idp${i}.example/jwks`,
    );
  const over = await adminFails(
    'trusted-issuer',
    'add',
    '--workspace',
    'idp-ws',
    '--issuer',
    'https://more.example',
    '--jwks-uri',
    'https://more.example/j',
  );
  assert.equal(JSON.parse(over.stdout).error.code, 'limit');
  const http = await adminFails('trusted-issuer', 'add', '--workspace', 'idp-ws', '--issuer', 'http://idp.example', '--jwks-file', file);
  assert.match(JSON.parse(http.stdout).error.message, /https/);
  assert.equal((await admin('trusted-issuer', 'list', '--workspace', 'idp-ws')).trustedIssuers.length, TRUSTED_ISSUER_LIMITS.maxIssuers);
  assert.deepEqual(await admin('trusted-issuer', 'remove', '--workspace', 'idp-ws', '--id', added.id), { id: added.id, removed: true });
  const accounts = createAccounts(redis.client, { pepper: DEV_PEPPER });
  const actions = (await accounts.audit.page('idp-ws', {})).entries.map((e) => e.action);
  assert.equal(actions.filter((a) => a === 'trusted_issuer.added').length, TRUSTED_ISSUER_LIMITS.maxIssuers);
  assert.ok(actions.includes('trusted_issuer.removed'));
});

test('workload-issuer add|list|remove: rules in their command-line form, the management layer`s checks, audited', async () => {
  await admin('user', 'create', '--email', 'wl-owner@example.com');
  await admin('workspace', 'create', '--slug', 'wl-ws', '--owner', 'wl-owner@example.com', '--plan', 'TEAM');
  const accounts = createAccounts(redis.client, { pepper: DEV_PEPPER });
  const { bot } = await accounts.bots.create({ workspace: 'wl-ws', name: 'ci' });
  const rule = `${bot.id}=repository:acme/app,sub:repo:acme/app:ref:refs/heads/main`;
  const added = await admin('workload-issuer', 'add', '--workspace', 'wl-ws', '--kind', 'github-actions', '--rule', rule);
  assert.equal(added.issuer, 'https://token.actions.githubusercontent.com');
  assert.deepEqual(added.rules, [{ serviceAccount: bot.id, claims: { repository: 'acme/app', sub: 'repo:acme/app:ref:refs/heads/main' } }]);
  const broad = await adminFails(
    'workload-issuer',
    'add',
    '--workspace',
    'wl-ws',
    '--kind',
    'github-actions',
    '--rule',
    `${bot.id}=workflow:deploy`,
  );
  assert.match(JSON.parse(broad.stdout).error.message, /must pin the owner/);
  const unreadable = await adminFails('workload-issuer', 'add', '--workspace', 'wl-ws', '--kind', 'github-actions', '--rule', 'no-equals');
  assert.match(JSON.parse(unreadable.stdout).error.message, /SERVICE_ACCOUNT=claim:pattern/);
  assert.equal((await admin('workload-issuer', 'list', '--workspace', 'wl-ws')).workloadIssuers.length, 1);
  assert.deepEqual(await admin('workload-issuer', 'remove', '--workspace', 'wl-ws', '--id', added.id), { id: added.id, removed: true });
  assert.equal(
    JSON.parse((await adminFails('workload-issuer', 'remove', '--workspace', 'wl-ws', '--id', added.id)).stdout).error.code,
    'not_found',
  );
  const actions = (await accounts.audit.page('wl-ws', {})).entries.map((e) => e.action);
  assert.deepEqual(actions.filter((a) => a.startsWith('workload_issuer.')).sort(), ['workload_issuer.added', 'workload_issuer.removed']);
});

/**
 * A plain MCP server on loopback (2025-11-25, JSON answers: initialize, tools/list), serving
 * `tools`, which the test changes; each request's headers are kept.
 */
async function plainUpstream(tools: { name: string; description: string; annotations?: object }[]) {
  const headers: Record<string, unknown>[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      headers.push(req.headers);
      const message = JSON.parse(text || '{}') as { id?: number; method?: string };
      if (message.id === undefined) return void res.writeHead(202).end();
      const results: Record<string, unknown> = {
        initialize: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'plain', version: '1' } },
        'tools/list': { tools: tools.map((t) => ({ inputSchema: { type: 'object' }, ...t })) },
      };
      const result = results[message.method ?? ''];
      const body = result ? { result } : { error: { code: -32601, message: 'Method not found' } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...body }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return { url, headers, close: () => new Promise<void>((done) => server.close(() => done())) };
}

test('upstreams list|refresh|remove: the management API’s operations as each project’s admin, audited; the credential never printed', async () => {
  await admin('user', 'create', '--email', 'up-owner@example.com');
  await admin('workspace', 'create', '--slug', 'up-ws', '--owner', 'up-owner@example.com', '--plan', 'TEAM');
  await admin('project', 'create', '--slug', 'up-docs', '--workspace', 'up-ws');
  const tools = [
    { name: 'read_notes', description: 'Lists the notes', annotations: { readOnlyHint: true } },
    { name: 'delete_note', description: 'Deletes a note' },
  ];
  const server = await plainUpstream(tools);
  const SECRET = 'sk_upstream_only_the_server_knows';
  try {
    // Registered as an admin does (addUpstream needs a person's second factor: not svc-admin's).
    const loopback = { address: '127.0.0.1', prefix: 32, family: 'ipv4' } as const;
    await createUpstreams({
      redis: redis.client,
      pepper: DEV_PEPPER,
      issuer: 'http://127.0.0.1:3000',
      allowedPrivate: [loopback],
    }).register({
      project: 'up-docs',
      workspace: 'up-ws',
      name: 'notes',
      url: server.url,
      credential: { header: 'X-Api-Key', value: SECRET },
      addedBy: 'up-owner@example.com',
    });
    // The operator's environment names the private blocks a gateway may call, as the gateway's does.
    const env = { UPSTREAM_ALLOWED_PRIVATE: '127.0.0.1/32' };
    const listed = await adminWith(env, 'upstreams', 'list', '--project', 'up-docs');
    assert.equal(listed.project, 'up-docs');
    assert.deepEqual(
      listed.upstreams.map((u: Output) => [u.name, u.url, u.credential, u.added_by, u.problem]),
      [['notes', server.url, { header: 'X-Api-Key' }, 'up-owner@example.com', null]],
    );
    assert.deepEqual(
      listed.upstreams[0].tools.map((t: Output) => [t.listed_name, t.state, t.level, t.enabled]),
      [
        ['notes__delete_note', 'listed', 'ADMIN', true],
        ['notes__read_notes', 'listed', 'VIEWER', true],
      ],
    );

    // The server changes a tool and adds one: the refresh flags both, new off, changed waiting.
    tools[0] = { ...tools[0]!, description: 'Lists and exports the notes' };
    tools.push({ name: 'export_notes', description: 'Exports the notes' });
    const before = server.headers.length;
    const refreshed = await adminWith(env, 'upstreams', 'refresh', '--project', 'up-docs', '--name', 'notes');
    assert.deepEqual(refreshed.flagged.sort(), ['export_notes', 'read_notes']);
    assert.deepEqual(
      refreshed.tools.map((t: Output) => [t.name, t.state, t.enabled]),
      [
        ['delete_note', 'listed', true],
        ['export_notes', 'new', false],
        ['read_notes', 'changed', true],
      ],
    );
    assert.ok(server.headers.slice(before).every((h) => h['x-api-key'] === SECRET && String(h['authorization']).startsWith('Bearer ')));
    // Without the operator's allowance the refresh is refused by the address guard, saying so on the record.
    const guarded = await admin('upstreams', 'refresh', '--project', 'up-docs', '--name', 'notes');
    assert.match(guarded.problem, /could not read the server's tools/);
    assert.ok(!JSON.stringify([listed, refreshed, guarded]).includes(SECRET), 'no output holds the credential');

    assert.deepEqual(await admin('upstreams', 'remove', '--project', 'up-docs', '--name', 'notes'), { name: 'notes', removed: true });
    assert.deepEqual((await admin('upstreams', 'list', '--project', 'up-docs')).upstreams, []);
    const again = await adminFails('upstreams', 'remove', '--project', 'up-docs', '--name', 'notes');
    assert.equal(JSON.parse(again.stdout).error.code, 'not_found');
    assert.equal(JSON.parse((await adminFails('upstreams', 'list', '--project', 'nowhere')).stdout).error.code, 'not_found');
    assert.match(JSON.parse((await adminFails('upstreams', 'refresh', '--project', 'up-docs')).stdout).error.message, /--name is required/);

    const accounts = createAccounts(redis.client, { pepper: DEV_PEPPER });
    const entries = (await accounts.audit.page('up-ws', {})).entries.filter((e) => e.action.startsWith('upstream.'));
    assert.deepEqual(entries.map((e) => e.action).reverse(), [
      'upstream.refreshed',
      'upstream.tools_changed',
      'upstream.refreshed',
      'upstream.removed',
    ]);
    assert.ok(entries.every((e) => e.actor === 'service:svc-admin' && e.source === 'svc-admin'));
  } finally {
    await server.close();
  }
});
