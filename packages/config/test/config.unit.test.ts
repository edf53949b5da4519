import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IncomingMessage } from 'node:http';
import {
  clientAddress,
  ConfigError,
  DEFAULT_TRACES_SAMPLER,
  DEFAULT_TRACES_SAMPLER_RATIO,
  DEV_KEY_PEPPER,
  listenPort,
  loadConfig,
  MAX_TRUST_PROXY_HOPS,
  DEFAULT_WAIT_REPLICAS_REPLICATED,
  MAX_WAIT_REPLICAS,
  TRACES_SAMPLERS,
  type TrustProxy,
} from '../src/index.ts';

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

test('TRUST_PROXY: off, a number of hops up to the bound, or a list of addresses; on is refused', () => {
  assert.deepEqual(loadConfig({}).trustProxy, { kind: 'off' });
  assert.deepEqual(loadConfig({ TRUST_PROXY: '1' }).trustProxy, { kind: 'hops', hops: 1 });
  assert.deepEqual(loadConfig({ TRUST_PROXY: String(MAX_TRUST_PROXY_HOPS) }).trustProxy, { kind: 'hops', hops: 10 });
  assert.throws(() => loadConfig({ TRUST_PROXY: String(MAX_TRUST_PROXY_HOPS + 1) }), /TRUST_PROXY must be at most 10 hops/);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 2001:db8::1,loopback' }).trustProxy, {
    kind: 'addresses',
    addresses: ['10.0.0.0/8', '2001:db8::1', 'loopback'],
  });
  for (const v of ['on', 'true'])
    assert.throws(
      () => loadConfig({ TRUST_PROXY: v }),
      (e: Error) => e instanceof ConfigError && /TRUST_PROXY=on is no longer accepted.*1 behind the Ingress controller/.test(e.message),
    );
  for (const v of ['proxy.example.com', '10.0.0.0/99', '1.2.3', ','])
    assert.throws(() => loadConfig({ TRUST_PROXY: v }), /TRUST_PROXY must be off, a number of proxy hops, or a comma-separated list/, v);
});

/** A request as node:http hands it over: the TCP peer and the headers. */
const fromPeer = (remoteAddress: string, headers: Record<string, string> = {}) => {
  const socket = { remoteAddress };
  return { socket, connection: socket, headers } as unknown as IncomingMessage;
};

test('clientAddress reads X-Forwarded-For only past the named proxies, and no other header', () => {
  const spoofs = {
    'x-forwarded-for': '203.0.113.5, 198.51.100.1',
    forwarded: 'for=192.0.2.9',
    'x-real-ip': '192.0.2.10',
  };
  const off = { kind: 'off' } as const;
  assert.equal(clientAddress(fromPeer('::ffff:192.0.2.1', spoofs), off), '192.0.2.1');
  assert.equal(clientAddress(fromPeer('2001:db8::7', spoofs), off), '2001:db8::7');
  const one = { kind: 'hops', hops: 1 } as const;
  assert.equal(clientAddress(fromPeer('10.0.0.2', spoofs), one), '198.51.100.1');
  assert.equal(clientAddress(fromPeer('10.0.0.2', { 'x-real-ip': '192.0.2.10' }), one), '10.0.0.2');
  const list: TrustProxy = { kind: 'addresses', addresses: ['10.0.0.0/8'] };
  assert.equal(clientAddress(fromPeer('10.0.0.2', spoofs), list), '198.51.100.1', 'a named proxy forwards');
  assert.equal(clientAddress(fromPeer('198.51.100.1', spoofs), list), '198.51.100.1', 'anyone else is not believed');
  assert.equal(clientAddress(fromPeer('10.0.0.2', { 'x-forwarded-for': '203.0.113.5, 10.9.9.9' }), list), '203.0.113.5');
  assert.equal(clientAddress(fromPeer(''), one), '', 'a closed connection has no address');
});

test('Redis Sentinel needs both its variables, and no cluster', () => {
  const c = loadConfig({ REDIS_SENTINELS: 'a.example:26379, 10.0.0.2:26380', REDIS_SENTINEL_MASTER: 'svc-main' });
  assert.deepEqual(c.redisSentinel, {
    sentinels: [
      { host: 'a.example', port: 26379 },
      { host: '10.0.0.2', port: 26380 },
    ],
    masterName: 'svc-main',
    password: null,
  });
  assert.equal(loadConfig({}).redisSentinel, null);
  assert.throws(() => loadConfig({ REDIS_SENTINELS: 'a:26379' }), /REDIS_SENTINELS is set without REDIS_SENTINEL_MASTER/);
  assert.throws(() => loadConfig({ REDIS_SENTINEL_MASTER: 'm' }), /REDIS_SENTINEL_MASTER is set without REDIS_SENTINELS/);
  assert.throws(() => loadConfig({ REDIS_SENTINEL_PASSWORD: 'p' }), /REDIS_SENTINEL_PASSWORD is set without REDIS_SENTINELS/);
  assert.throws(
    () => loadConfig({ REDIS_SENTINELS: 'a:26379', REDIS_SENTINEL_MASTER: 'm', REDIS_CLUSTER: 'on' }),
    /REDIS_SENTINELS cannot be used with a Redis Cluster/,
  );
  assert.throws(
    () => loadConfig({ REDIS_SENTINELS: 'a', REDIS_SENTINEL_MASTER: 'm' }),
    /REDIS_SENTINELS must be a comma-separated list of host:port/,
  );
  assert.throws(() => loadConfig({ REDIS_SENTINELS: 'a:99999', REDIS_SENTINEL_MASTER: 'm' }), /port out of range: a:99999/);
  assert.throws(() => loadConfig({ REDIS_SENTINELS: 'a:1', REDIS_SENTINEL_MASTER: 'm x' }), /REDIS_SENTINEL_MASTER must be the name/);
  assert.equal(
    loadConfig({ REDIS_SENTINELS: 'a:1', REDIS_SENTINEL_MASTER: 'm', REDIS_SENTINEL_PASSWORD: 's' }).redisSentinel?.password,
    's',
  );
});

test('REDIS_WAIT_REPLICAS is a small count', () => {
  assert.equal(loadConfig({}).redisWaitReplicas, 0);
  assert.equal(loadConfig({ REDIS_WAIT_REPLICAS: '2' }).redisWaitReplicas, 2);
  assert.throws(() => loadConfig({ REDIS_WAIT_REPLICAS: '-1' }), /REDIS_WAIT_REPLICAS/);
  assert.equal(loadConfig({ REDIS_WAIT_REPLICAS: String(MAX_WAIT_REPLICAS) }).redisWaitReplicas, MAX_WAIT_REPLICAS);
  assert.throws(() => loadConfig({ REDIS_WAIT_REPLICAS: String(MAX_WAIT_REPLICAS + 1) }), /REDIS_WAIT_REPLICAS must be <= 16/);
  assert.throws(() => loadConfig({ REDIS_WAIT_REPLICAS: 'all' }), /REDIS_WAIT_REPLICAS/);
});

test('REDIS_WAIT_REPLICAS unset: one replica confirms behind Sentinel or a Cluster, none on a standalone Redis', () => {
  const sentinel = { REDIS_SENTINELS: 'a:26379,b:26379', REDIS_SENTINEL_MASTER: 'svc' };
  const cluster = { REDIS_CLUSTER: 'on', REDIS_URL: 'redis://a:7000' };
  const seeds = { REDIS_URL: 'redis://a:7000,redis://b:7001' };
  assert.equal(DEFAULT_WAIT_REPLICAS_REPLICATED, 1);
  assert.equal(loadConfig({}).redisWaitReplicas, 0);
  assert.equal(loadConfig({ REDIS_URL: 'redis://a:6379' }).redisWaitReplicas, 0);
  for (const env of [sentinel, cluster, seeds]) {
    assert.equal(loadConfig(env).redisWaitReplicas, DEFAULT_WAIT_REPLICAS_REPLICATED, JSON.stringify(env));
    assert.equal(loadConfig({ ...env, REDIS_WAIT_REPLICAS: '' }).redisWaitReplicas, DEFAULT_WAIT_REPLICAS_REPLICATED);
    // Set explicitly, the operator's value wins: 0 opts out, a larger count asks for more.
    assert.equal(loadConfig({ ...env, REDIS_WAIT_REPLICAS: '0' }).redisWaitReplicas, 0, JSON.stringify(env));
    assert.equal(loadConfig({ ...env, REDIS_WAIT_REPLICAS: '2' }).redisWaitReplicas, 2);
  }
});

test('traces are off by default and on with an OTLP endpoint (docs/operations.md "Traces")', () => {
  assert.equal(loadConfig({}).tracing, null);
  assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing, null);
  const defaults = { sampler: 'parentbased_traceidratio', ratio: 0.1, headers: {} };
  assert.deepEqual(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }).tracing, {
    url: 'http://c:4318/v1/traces',
    serviceName: null,
    ...defaults,
  });
  assert.deepEqual(
    loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:4318/custom',
      OTEL_SERVICE_NAME: 'gw-1',
    }).tracing,
    { url: 'http://t:4318/custom', serviceName: 'gw-1', ...defaults },
  );
  assert.deepEqual(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing, {
    url: 'http://localhost:4318/v1/traces',
    serviceName: null,
    ...defaults,
  });
  assert.throws(() => loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), /OTEL_EXPORTER_OTLP_PROTOCOL/);
  assert.throws(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }), /OTEL_EXPORTER_OTLP_ENDPOINT must be an http/);
  assert.throws(() => loadConfig({ OTEL_TRACES_EXPORTER: 'zipkin' }), /OTEL_TRACES_EXPORTER/);
});

test('the trace sampler and the collector headers (docs/operations.md "Traces": sampling)', () => {
  const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
  assert.equal(DEFAULT_TRACES_SAMPLER, 'parentbased_traceidratio');
  assert.equal(DEFAULT_TRACES_SAMPLER_RATIO, 0.1);
  for (const sampler of TRACES_SAMPLERS) assert.equal(loadConfig({ ...on, OTEL_TRACES_SAMPLER: sampler }).tracing?.sampler, sampler);
  assert.equal(loadConfig({ ...on, OTEL_TRACES_SAMPLER_ARG: '0' }).tracing?.ratio, 0);
  assert.equal(loadConfig({ ...on, OTEL_TRACES_SAMPLER_ARG: '0.25' }).tracing?.ratio, 0.25);
  assert.equal(loadConfig({ ...on, OTEL_TRACES_SAMPLER_ARG: '1' }).tracing?.ratio, 1);
  assert.throws(() => loadConfig({ ...on, OTEL_TRACES_SAMPLER: 'jaeger_remote' }), /OTEL_TRACES_SAMPLER must be equal to one of/);
  assert.throws(() => loadConfig({ ...on, OTEL_TRACES_SAMPLER: 'AlwaysOn' }), /OTEL_TRACES_SAMPLER /);
  for (const arg of ['1.5', '-0.1', 'half'])
    assert.throws(() => loadConfig({ ...on, OTEL_TRACES_SAMPLER_ARG: arg }), /OTEL_TRACES_SAMPLER_ARG/, arg);
  assert.deepEqual(loadConfig({ ...on, OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20s3cret, x-tenant=a' }).tracing?.headers, {
    authorization: 'Bearer s3cret',
    'x-tenant': 'a',
  });
  const bad = (value: string) => {
    try {
      loadConfig({ ...on, OTEL_EXPORTER_OTLP_HEADERS: value });
    } catch (err) {
      return String(err);
    }
    return 'accepted';
  };
  for (const value of ['no-equals-s3cret', 'authorization=%zz-s3cret']) {
    const message = bad(value);
    assert.match(message, /OTEL_EXPORTER_OTLP_HEADERS/);
    assert.ok(!message.includes('s3cret'), `the refusal shows the value: ${message}`);
  }
});
