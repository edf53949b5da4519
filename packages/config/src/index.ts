/**
 * Configuration, validated once at start-up into a typed object (docs/conventions.md "Data and configuration").
 * loadConfig() throws a ConfigError naming the variable on any bad value, and refuses the published
 * development secrets when NODE_ENV=production. Every variable is listed in the README.
 */
import { isIP } from 'node:net';
import { Ajv, type JSONSchemaType } from 'ajv';
import { ConfigError } from './config-error.ts';
import { MAX_WAIT_REPLICAS, redisTopology, type RedisVariables } from './redis-topology.ts';
import { parseTrustProxy } from './trust-proxy.ts';

export { ConfigError } from './config-error.ts';
export { DEFAULT_WAIT_REPLICAS_REPLICATED, MAX_WAIT_REPLICAS } from './redis-topology.ts';

export { HSTS_MAX_AGE_SECONDS, strictTransportSecurity } from './hsts.ts';
export { clientAddress, MAX_TRUST_PROXY_HOPS, trustFunction, type TrustProxy } from './trust-proxy.ts';
export type { Config } from './config-shape.ts';
export { DEFAULT_TRACES_SAMPLER, DEFAULT_TRACES_SAMPLER_RATIO, TRACES_SAMPLERS } from './config-shape.ts';
import { DEFAULT_TRACES_SAMPLER, DEFAULT_TRACES_SAMPLER_RATIO, TRACES_SAMPLERS, type Config, type TracesSampler } from './config-shape.ts';

export const DEV_KEY_PEPPER = 'svc-development-pepper-do-not-use-in-production';
const DEV_COOKIE_KEY = 'svc-development-cookie-key-do-not-use-in-production';

type Raw = Record<string, string | undefined>;

interface EnvShape extends RedisVariables {
  NODE_ENV: 'development' | 'test' | 'production';
  AUTH_URL: string;
  BASE_URL: string;
  PORT?: number;
  KEY_PEPPER: string;
  KEY_PEPPER_PREVIOUS?: string;
  COOKIE_KEYS: string;
  LOG_LEVEL: Config['logLevel'];
  LOG_FORMAT: Config['logFormat'];
  RATE_LIMIT_PROFILE: Config['rateLimitProfile'];
  RATE_LIMIT_SCALE: number;
  RATE_LIMIT_MODE: Config['rateLimitMode'];
  LEGACY_CREDENTIALS: 'on' | 'off';
  ALLOWED_ORIGINS: string;
  MAX_BODY_BYTES: number;
  AUTH_CACHE_TTL_MS: number;
  CIMD_ALLOWED_HOSTS: string;
  SSO_PRIVATE_ISSUERS: 'allow' | 'refuse';
  WEBHOOKS: 'on' | 'off';
  WEBHOOK_ALLOWED_PRIVATE: string;
  UPSTREAM_ALLOWED_PRIVATE: string;
  TRUST_PROXY: string;
  EMBEDDINGS_URL?: string;
  EMBEDDINGS_API_KEY?: string;
  EMBEDDINGS_MODEL: string;
  SMTP_URL?: string;
  MAIL_FROM: string;
  EMAIL: 'on' | 'off';
  OUTBOX_DIR: string;
  OTEL_TRACES_EXPORTER?: 'otlp' | 'none';
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json';
  OTEL_SERVICE_NAME?: string;
  OTEL_TRACES_SAMPLER: TracesSampler;
  OTEL_TRACES_SAMPLER_ARG: number;
  OTEL_EXPORTER_OTLP_HEADERS?: string;
}

const URL_PATTERN = '^https?://[^/\\s]+$';

const schema: JSONSchemaType<EnvShape> = {
  type: 'object',
  properties: {
    NODE_ENV: { type: 'string', enum: ['development', 'test', 'production'], default: 'development' },
    AUTH_URL: { type: 'string', pattern: URL_PATTERN, default: 'http://localhost:4000' },
    BASE_URL: { type: 'string', pattern: URL_PATTERN, default: 'http://localhost:3000' },
    PORT: { type: 'integer', minimum: 0, maximum: 65535, nullable: true },
    REDIS_URL: { type: 'string', pattern: '^rediss?://[^,\\s]+(,\\s*rediss?://[^,\\s]+)*$', default: 'redis://127.0.0.1:6379' },
    REDIS_CLUSTER: { type: 'string', enum: ['on', 'off'], default: 'off' },
    REDIS_SENTINELS: { type: 'string', pattern: '^[^,:\\s]+:\\d{1,5}(\\s*,\\s*[^,:\\s]+:\\d{1,5})*$', nullable: true },
    REDIS_SENTINEL_MASTER: { type: 'string', pattern: '^[A-Za-z0-9._-]+$', nullable: true },
    REDIS_SENTINEL_PASSWORD: { type: 'string', nullable: true },
    // No schema default: unset means 0 on a standalone Redis, DEFAULT_WAIT_REPLICAS_REPLICATED behind Sentinel or a Cluster.
    REDIS_WAIT_REPLICAS: { type: 'integer', minimum: 0, maximum: MAX_WAIT_REPLICAS, nullable: true },
    KEY_PEPPER: { type: 'string', minLength: 32, default: DEV_KEY_PEPPER },
    KEY_PEPPER_PREVIOUS: { type: 'string', minLength: 32, nullable: true },
    COOKIE_KEYS: { type: 'string', minLength: 32, default: DEV_COOKIE_KEY },
    LOG_LEVEL: { type: 'string', enum: ['error', 'warn', 'info', 'http', 'debug'], default: 'info' },
    LOG_FORMAT: { type: 'string', enum: ['json', 'text'], default: 'json' },
    RATE_LIMIT_PROFILE: { type: 'string', enum: ['current', 'earlier'], default: 'current' },
    RATE_LIMIT_SCALE: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
    RATE_LIMIT_MODE: { type: 'string', enum: ['leased', 'exact'], default: 'exact' },
    LEGACY_CREDENTIALS: { type: 'string', enum: ['on', 'off'], default: 'on' },
    ALLOWED_ORIGINS: { type: 'string', default: '' },
    MAX_BODY_BYTES: { type: 'integer', minimum: 1024, maximum: 16 * 1024 * 1024, default: 512 * 1024 },
    AUTH_CACHE_TTL_MS: { type: 'integer', minimum: 0, maximum: 60_000, default: 5_000 },
    CIMD_ALLOWED_HOSTS: { type: 'string', default: '*' },
    SSO_PRIVATE_ISSUERS: { type: 'string', enum: ['allow', 'refuse'], default: 'refuse' },
    WEBHOOKS: { type: 'string', enum: ['on', 'off'], default: 'on' },
    WEBHOOK_ALLOWED_PRIVATE: { type: 'string', default: '' },
    UPSTREAM_ALLOWED_PRIVATE: { type: 'string', default: '' },
    TRUST_PROXY: { type: 'string', minLength: 1, maxLength: 2000, default: 'off' },
    EMBEDDINGS_URL: { type: 'string', pattern: '^https?://', nullable: true },
    EMBEDDINGS_API_KEY: { type: 'string', nullable: true },
    EMBEDDINGS_MODEL: { type: 'string', minLength: 1, default: 'text-embedding-3-small' },
    SMTP_URL: { type: 'string', pattern: '^smtps?://', nullable: true },
    MAIL_FROM: { type: 'string', minLength: 3, default: 'svc <no-reply@localhost>' },
    EMAIL: { type: 'string', enum: ['on', 'off'], default: 'on' },
    OUTBOX_DIR: { type: 'string', minLength: 1, default: '.data/outbox' },
    OTEL_TRACES_EXPORTER: { type: 'string', enum: ['otlp', 'none'], nullable: true },
    OTEL_EXPORTER_OTLP_ENDPOINT: { type: 'string', pattern: '^https?://[^\\s]+$', nullable: true },
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: { type: 'string', pattern: '^https?://[^\\s]+$', nullable: true },
    // The OTLP/HTTP exporter speaks JSON (@opentelemetry/exporter-trace-otlp-http); no protobuf or gRPC.
    OTEL_EXPORTER_OTLP_PROTOCOL: { type: 'string', enum: ['http/json'], default: 'http/json' },
    OTEL_SERVICE_NAME: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$', nullable: true },
    OTEL_TRACES_SAMPLER: { type: 'string', enum: [...TRACES_SAMPLERS], default: DEFAULT_TRACES_SAMPLER },
    OTEL_TRACES_SAMPLER_ARG: { type: 'number', minimum: 0, maximum: 1, default: DEFAULT_TRACES_SAMPLER_RATIO },
    // W3C Baggage-like `key=value,key=value` (OpenTelemetry's OTLP exporter spec), values URL-encoded.
    OTEL_EXPORTER_OTLP_HEADERS: { type: 'string', pattern: '^[^=,\\s]+=[^,]*(,\\s*[^=,\\s]+=[^,]*)*$', nullable: true },
  },
  required: [],
  additionalProperties: true,
};

/** What a value must look like, for variables whose rule is a pattern (said instead of the regex). */
const PATTERN_MEANS: Record<string, string> = {
  AUTH_URL: 'an origin such as https://auth.example.com (http or https, no path)',
  BASE_URL: 'an origin such as https://api.example.com (http or https, no path)',
  REDIS_URL: 'a redis:// or rediss:// URL (comma-separated seed nodes for a cluster)',
  REDIS_SENTINELS: 'a comma-separated list of host:port, e.g. sentinel-0:26379,sentinel-1:26379',
  REDIS_SENTINEL_MASTER: 'the name Sentinel monitors the master under (letters, digits, . _ -)',
  EMBEDDINGS_URL: 'an http or https URL',
  SMTP_URL: 'an smtp:// or smtps:// URL, e.g. smtps://user:password@smtp.example.com',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'an http or https URL, e.g. http://collector:4318',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'an http or https URL, e.g. http://collector:4318/v1/traces',
  OTEL_SERVICE_NAME: '1 to 64 letters, digits, . _ or -',
  OTEL_EXPORTER_OTLP_HEADERS: 'a comma-separated list of name=value (e.g. authorization=Bearer%20x)',
};

const validate = new Ajv({ useDefaults: true, coerceTypes: true, allErrors: true }).compile(schema);

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** Reads and validates the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: Raw = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value.trim();
  }
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).map((e) => {
      const name = e.instancePath.replace(/^\//, '') || String(e.params['missingProperty'] ?? '');
      if (e.keyword === 'pattern' && PATTERN_MEANS[name]) return `${name} must be ${PATTERN_MEANS[name]}`;
      return `${name} ${e.message ?? 'is invalid'}${'allowedValues' in e.params ? ` (${(e.params['allowedValues'] as string[]).join(', ')})` : ''}`;
    });
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const c = raw as unknown as EnvShape;
  if (c.NODE_ENV === 'production') {
    if (c.KEY_PEPPER === DEV_KEY_PEPPER)
      throw new ConfigError('KEY_PEPPER must be set to a secret of at least 32 characters in production');
    if (c.COOKIE_KEYS.includes(DEV_COOKIE_KEY))
      throw new ConfigError('COOKIE_KEYS must be set to secrets of at least 32 characters in production');
    if (!c.SMTP_URL && c.EMAIL === 'on')
      throw new ConfigError(
        'SMTP_URL must be set in production (password reset and notices send email), or EMAIL=off to run without email',
      );
  }
  if (c.KEY_PEPPER_PREVIOUS === c.KEY_PEPPER) throw new ConfigError('KEY_PEPPER_PREVIOUS must differ from KEY_PEPPER');
  const trustProxy = parseTrustProxy(c.TRUST_PROXY);
  if (typeof trustProxy === 'string') throw new ConfigError(trustProxy);
  const redis = redisTopology(c);
  const stripSlash = (u: string) => u.replace(/\/+$/, '');
  return {
    nodeEnv: c.NODE_ENV,
    authUrl: stripSlash(new URL(c.AUTH_URL).origin),
    baseUrl: stripSlash(new URL(c.BASE_URL).origin),
    port: c.PORT ?? null,
    redisUrl: c.REDIS_URL,
    ...redis,
    keyPepper: c.KEY_PEPPER,
    previousKeyPepper: c.KEY_PEPPER_PREVIOUS ?? null,
    cookieKeys: list(c.COOKIE_KEYS),
    logLevel: c.LOG_LEVEL,
    logFormat: c.LOG_FORMAT,
    rateLimitProfile: c.RATE_LIMIT_PROFILE,
    rateLimitScale: c.RATE_LIMIT_SCALE,
    rateLimitMode: c.RATE_LIMIT_MODE,
    legacyCredentials: c.LEGACY_CREDENTIALS === 'on',
    allowedOrigins: list(c.ALLOWED_ORIGINS),
    maxBodyBytes: c.MAX_BODY_BYTES,
    authCacheTtlMs: c.AUTH_CACHE_TTL_MS,
    cimdAllowedHosts: list(c.CIMD_ALLOWED_HOSTS),
    ssoPrivateIssuers: c.SSO_PRIVATE_ISSUERS === 'allow',
    webhooks: c.WEBHOOKS === 'on',
    webhookAllowedPrivate: list(c.WEBHOOK_ALLOWED_PRIVATE).map((b) => cidr(b, 'WEBHOOK_ALLOWED_PRIVATE')),
    upstreamAllowedPrivate: list(c.UPSTREAM_ALLOWED_PRIVATE).map((b) => cidr(b, 'UPSTREAM_ALLOWED_PRIVATE')),
    trustProxy,
    email:
      c.EMAIL === 'off'
        ? { mode: 'off' }
        : c.SMTP_URL
          ? { mode: 'smtp', url: c.SMTP_URL, from: c.MAIL_FROM }
          : { mode: 'outbox', dir: c.OUTBOX_DIR, from: c.MAIL_FROM },
    tracing: tracingConfig(c),
    embeddings: c.EMBEDDINGS_URL ? { url: c.EMBEDDINGS_URL, apiKey: c.EMBEDDINGS_API_KEY ?? null, model: c.EMBEDDINGS_MODEL } : null,
  };
}

/** One block of WEBHOOK_ALLOWED_PRIVATE or UPSTREAM_ALLOWED_PRIVATE: an IP address and a prefix length that fits its family. */
function cidr(block: string, variable: string): Config['webhookAllowedPrivate'][number] {
  const [address = '', bits = ''] = block.split('/');
  const family = isIP(address);
  const prefix = Number(bits);
  if (family === 0 || !/^\d{1,3}$/.test(bits) || prefix > (family === 4 ? 32 : 128))
    throw new ConfigError(`${variable}: ${JSON.stringify(block.slice(0, 60))} is not a CIDR block (10.1.0.0/16, fd00::/8)`);
  return { address, prefix, family: family === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * Traces are off unless asked for (docs/operations.md "Traces"): an OTLP endpoint, or
 * OTEL_TRACES_EXPORTER=otlp (then the OTLP default, localhost:4318). The signal-specific endpoint
 * is used as given; the general one gets /v1/traces appended (OpenTelemetry's OTLP exporter spec).
 */
function tracingConfig(c: EnvShape): Config['tracing'] {
  if (c.OTEL_TRACES_EXPORTER === 'none') return null;
  const general = c.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, '');
  const url =
    c.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (general ? `${general}/v1/traces` : c.OTEL_TRACES_EXPORTER === 'otlp' ? 'http://localhost:4318/v1/traces' : null);
  if (!url) return null;
  return {
    url,
    serviceName: c.OTEL_SERVICE_NAME ?? null,
    sampler: c.OTEL_TRACES_SAMPLER,
    ratio: c.OTEL_TRACES_SAMPLER_ARG,
    headers: otlpHeaders(c.OTEL_EXPORTER_OTLP_HEADERS ?? ''),
  };
}

/** OTEL_EXPORTER_OTLP_HEADERS' pairs; a value that is not valid URL encoding is named (never shown). */
function otlpHeaders(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of list(raw)) {
    const at = pair.indexOf('=');
    const name = pair.slice(0, at).trim();
    try {
      out[name] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw new ConfigError(`OTEL_EXPORTER_OTLP_HEADERS: the value of ${JSON.stringify(name.slice(0, 60))} is not URL-encoded`);
    }
  }
  return out;
}

/** The port a service listens on: PORT, else the port of its public URL. */
export function listenPort(config: Config, url: string): number {
  if (config.port !== null) return config.port;
  const u = new URL(url);
  return u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
}
