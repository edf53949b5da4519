import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, DEV_KEY_PEPPER, listenPort, loadConfig } from '../src/index.ts';

test('defaults are the local ones', () => {
  const c = loadConfig({});
  assert.equal(c.authUrl, 'http://localhost:4000');
  assert.equal(c.baseUrl, 'http://localhost:3000');
  assert.equal(c.redisUrl, 'redis://127.0.0.1:6379');
  assert.equal(listenPort(c, c.baseUrl), 3000);
  assert.equal(listenPort({ ...c, port: 0 }, c.baseUrl), 0);
});

test('a bad value names its variable', () => {
  assert.throws(
    () => loadConfig({ RATE_LIMIT_SCALE: 'lots' }),
    (e: Error) => e instanceof ConfigError && /RATE_LIMIT_SCALE/.test(e.message),
  );
  assert.throws(() => loadConfig({ BASE_URL: 'localhost:3000' }), /BASE_URL/);
  assert.throws(() => loadConfig({ REDIS_URL: 'localhost:6379' }), /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/);
  assert.throws(() => loadConfig({ RATE_LIMIT_PROFILE: 'later' }), /RATE_LIMIT_PROFILE.*current, earlier/);
  assert.throws(() => loadConfig({ KEY_PEPPER: 'short' }), /KEY_PEPPER/);
  assert.throws(() => loadConfig({ KEY_PEPPER_PREVIOUS: 'short' }), /KEY_PEPPER_PREVIOUS/);
  assert.throws(() => loadConfig({ KEY_PEPPER: 'p'.repeat(40), KEY_PEPPER_PREVIOUS: 'p'.repeat(40) }), /KEY_PEPPER_PREVIOUS must differ/);
  assert.equal(loadConfig({ KEY_PEPPER_PREVIOUS: 'q'.repeat(40) }).previousKeyPepper, 'q'.repeat(40));
  assert.equal(loadConfig({}).previousKeyPepper, null);
});

test('production refuses the published development secrets', () => {
  assert.throws(() => loadConfig({ NODE_ENV: 'production' }), /KEY_PEPPER must be set/);
  assert.throws(() => loadConfig({ NODE_ENV: 'production', KEY_PEPPER: 'k'.repeat(40) }), /COOKIE_KEYS must be set/);
  const secrets = { NODE_ENV: 'production', KEY_PEPPER: 'k'.repeat(40), COOKIE_KEYS: 'c'.repeat(40) };
  assert.throws(() => loadConfig(secrets), /SMTP_URL must be set in production .* or EMAIL=off/);
  const c = loadConfig({ ...secrets, SMTP_URL: 'smtps://u:p@smtp.example.com' });
  assert.notEqual(c.keyPepper, DEV_KEY_PEPPER);
  assert.deepEqual(c.email, { mode: 'smtp', url: 'smtps://u:p@smtp.example.com', from: 'svc <no-reply@localhost>' });
  assert.deepEqual(loadConfig({ ...secrets, EMAIL: 'off' }).email, { mode: 'off' });
  assert.deepEqual(loadConfig({}).email, { mode: 'outbox', dir: '.data/outbox', from: 'svc <no-reply@localhost>' });
  assert.throws(() => loadConfig({ SMTP_URL: 'http://mail' }), /SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL/);
});
