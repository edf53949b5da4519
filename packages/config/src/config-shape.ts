/** What loadConfig() gives the services: every setting typed, read and checked once (index.ts). */
import type { TrustProxy } from './trust-proxy.ts';

export interface Config {
  nodeEnv: 'development' | 'test' | 'production';
  authUrl: string;
  baseUrl: string;
  /** Port override for whichever service reads it (PORT); else each listens on its URL's port. */
  port: number | null;
  redisUrl: string;
  /** REDIS_URL lists Redis Cluster seed nodes (comma-separated). */
  redisCluster: boolean;
  /**
   * Redis behind Sentinel (REDIS_SENTINELS, REDIS_SENTINEL_MASTER; docs/operations.md "Redis
   * Sentinel"): the master is asked of these sentinels; REDIS_URL still gives password, TLS and
   * database. Null: REDIS_URL's host is the Redis.
   */
  redisSentinel: RedisSentinel | null;
  /**
   * Replicas that must confirm an account, key, grant or audit write before it is acknowledged
   * (REDIS_WAIT_REPLICAS; docs/operations.md "Write durability"); 0 acknowledges on the primary alone.
   * Unset: 1 behind Sentinel or a Cluster, 0 on a standalone Redis.
   */
  redisWaitReplicas: number;
  /** Server-side pepper of the keyed hash under which credentials are stored. */
  keyPepper: string;
  /**
   * The pepper being retired (KEY_PEPPER_PREVIOUS): keys stored under it are still accepted and
   * re-hashed under KEY_PEPPER on use (docs/operations.md "Rotating the key pepper").
   */
  previousKeyPepper: string | null;
  /** Keys signing the auth-service's cookies (comma-separated COOKIE_KEYS). */
  cookieKeys: string[];
  logLevel: 'error' | 'warn' | 'info' | 'http' | 'debug';
  /** `json` lines (for log collectors) or `text` (one readable line each, for a console). */
  logFormat: 'json' | 'text';
  rateLimitProfile: 'current' | 'earlier';
  rateLimitScale: number;
  /**
   * The gateway's limiter (docs/operations.md "Leased or exact limits"): `leased` blocks reserved
   * per replica and decided locally (what the shipped configuration sets), or `exact` (the
   * variable's default), one Redis call per workspace and turn.
   */
  rateLimitMode: 'leased' | 'exact';
  legacyCredentials: boolean;
  /** Origins allowed on the MCP endpoints besides the service's own (comma-separated). */
  allowedOrigins: string[];
  maxBodyBytes: number;
  /** Backstop lifetime of the gateway's verified-credential cache. */
  authCacheTtlMs: number;
  /** Hosts whose Client ID Metadata Documents the auth-service may fetch ('*' any https host). */
  cimdAllowedHosts: string[];
  /**
   * SSO_PRIVATE_ISSUERS=allow: single sign-on may reach a provider at a loopback or private address,
   * over plain http (docs/auth-service.md "Single sign-on"); off unless an operator sets it.
   */
  ssoPrivateIssuers: boolean;
  /** WEBHOOKS=on (default): the auth-service runs the webhook delivery worker (docs/webhooks.md "Delivery"). */
  webhooks: boolean;
  /**
   * WEBHOOK_ALLOWED_PRIVATE: CIDR blocks (`10.1.0.0/16`, `fd00::/8`) of special-use addresses
   * webhooks may be delivered to anyway; none by default (docs/webhooks.md "Outbound protections").
   */
  webhookAllowedPrivate: { address: string; prefix: number; family: 'ipv4' | 'ipv6' }[];
  /**
   * UPSTREAM_ALLOWED_PRIVATE: CIDR blocks of special-use addresses a project's upstream MCP servers
   * may be at (a server in the same cluster: `10.0.0.0/8`); none by default
   * (docs/upstream-servers.md "Servers in your own network").
   */
  upstreamAllowedPrivate: { address: string; prefix: number; family: 'ipv4' | 'ipv6' }[];
  /** OpenAI-compatible embeddings endpoint for semantic search; null: the built-in local embedder. */
  embeddings: { url: string; apiKey: string | null; model: string } | null;
  /** The proxies whose X-Forwarded-For is read (TRUST_PROXY; docs/operations.md "Proxies"). */
  trustProxy: TrustProxy;
  /**
   * Where email goes (docs/operations.md "Email"): SMTP_URL; else, outside production, an outbox
   * folder; `off` (EMAIL=off) turns the email features off.
   */
  email: { mode: 'smtp'; url: string; from: string } | { mode: 'outbox'; dir: string; from: string } | { mode: 'off' };
  /**
   * OpenTelemetry traces (docs/operations.md "Traces"): the OTLP/HTTP traces URL and the service
   * name; null (the default) when no endpoint is set or OTEL_TRACES_EXPORTER=none.
   */
  tracing: TracingSettings | null;
}

/** The sentinels to ask for the master, and the master's name (docs/operations.md "Redis Sentinel"). */
export interface RedisSentinel {
  sentinels: { host: string; port: number }[];
  masterName: string;
  /** The sentinels' own password (REDIS_SENTINEL_PASSWORD), when they require one. */
  password: string | null;
}

/** The OTEL_TRACES_SAMPLER values svc takes (OpenTelemetry's SDK environment variables spec). */
export const TRACES_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TracesSampler = (typeof TRACES_SAMPLERS)[number];
/** The default sampler: a caller's sampled flag decides; a request without one is kept at the ratio. */
export const DEFAULT_TRACES_SAMPLER: TracesSampler = 'parentbased_traceidratio';
/** The default OTEL_TRACES_SAMPLER_ARG: one request in ten without a sampled caller is traced. */
export const DEFAULT_TRACES_SAMPLER_RATIO = 0.1;

/** Where spans go and which are kept (docs/operations.md "Traces"). */
export interface TracingSettings {
  url: string;
  serviceName: string | null;
  sampler: TracesSampler;
  /** OTEL_TRACES_SAMPLER_ARG, 0..1: the ratio of the traceidratio samplers (ignored by the others). */
  ratio: number;
  /** OTEL_EXPORTER_OTLP_HEADERS: the collector's own credentials; never logged. */
  headers: Record<string, string>;
}
