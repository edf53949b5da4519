/**
 * The key-expiry sweep (docs/management.md "Expiry") on a real Redis and a real local SMTP server:
 * a project key that ends within a week is announced once to its project's admins, with the roll
 * command; a key that has ended is recorded once as key.expired; a key whose end a roll chose is
 * not announced; sweeping again changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis, createAccounts, type Accounts, type Redis } from '@svc/accounts';
import { createMailer } from '@svc/mail';
import { createManagement } from '@svc/management';
import { startRedis, startSmtpInbox, testClock, waitFor, type RedisFixture, type SmtpInbox } from '@svc/testkit';

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
let smtp: SmtpInbox;
const inbox = () => smtp.mails;
const clock = testClock();
let management: ReturnType<typeof createManagement>;

before(async () => {
  smtp = await startSmtpInbox();
  redis = await startRedis();
  client = connectRedis(redis.url, { name: 'expiry-test' });
  accounts = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4, now: clock.now });
  const mailer = createMailer({ mode: 'smtp', url: smtp.url, from: 'svc@example.com' });
  management = createManagement(accounts, { redis: client, mailer, authUrl: 'http://auth.test', now: clock.now });
});
after(async () => {
  client.disconnect();
  await redis.stop();
  await smtp.close();
});
test('expiring keys are announced once, ended ones recorded once, a roll announces nothing', async () => {
  const owner = await accounts.users.create({ emailVerified: true, email: 'owner@example.com', password: 'a long enough passphrase' });
  await accounts.workspaces.createProject({ slug: 'expiring', workspace: owner.workspace });
  const key = (name: string, seconds?: number) =>
    accounts.keys.createProjectKey({
      project: 'expiring',
      workspace: owner.workspace,
      level: 'VIEWER',
      name,
      ...(seconds ? { expiresInSeconds: seconds } : {}),
    });
  const soon = await key('deploy bot', 3 * 86_400);
  await key('far away', 30 * 86_400);
  await key('forever');
  const brief = await key('brief', 1);
  const rolled = await key('rolled', 30 * 86_400);
  const actor = { kind: 'person' as const, userId: owner.id, label: owner.email, source: 'test', requestId: 'r1' };
  await management.rollKey(actor, 'expiring', rolled.id, '1h');

  clock.advance(2_000);
  assert.deepEqual(await management.sweepKeyExpiries(), { warned: 1, expired: 1 });
  const mail = await waitFor(() => inbox().find((m) => m.to === 'owner@example.com'), { timeout: 5000, message: 'the expiry notice' });
  assert.match(mail.text, /The API key "deploy bot" \(svc-\S+, VIEWER\) of project expiring stops working at \d{4}-/);
  assert.ok(mail.text.includes(`svc keys roll ${soon.id} --project expiring --overlap 24h`), mail.text);
  const expired = await accounts.audit.page(owner.workspace, { action: 'key.expired' });
  assert.deepEqual(
    expired.entries.map((e) => e.target),
    [`key:${brief.id} (${brief.record.prefix}, "brief")`],
  );

  assert.deepEqual(await management.sweepKeyExpiries(), { warned: 0, expired: 0 }, 'a second sweep changes nothing');
  clock.advance(2 * 3600_000);
  assert.deepEqual(await management.sweepKeyExpiries(), { warned: 0, expired: 1 }, 'the rolled key ends with its overlap, unannounced');
  assert.equal(inbox().length, 1, 'one mail in all');
});
