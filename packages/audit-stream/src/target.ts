/**
 * Where `svc-admin audit stream` sends, from its flags and the OpenTelemetry exporter variables
 * (OpenTelemetry specification "OTLP Exporter Configuration"), checked once at start: a bad value
 * stops it with a message naming the flag or variable.
 */
import { AUDIT_STREAM_NAME, AUDIT_STREAM_TIMEOUT_MS } from './bounds.ts';
import type { OtlpTarget } from './sinks.ts';

export type StreamTarget = { name: string } & ({ kind: 'stdout' } | ({ kind: 'otlp' } & OtlpTarget));

export class TargetError extends Error {
  override name = 'TargetError';
}

/** `--name` (else SVC_AUDIT_EXPORTER, else `default`), and `--stdout` or `--otlp-endpoint` (else the OTEL_ variables). */
export function streamTarget(flags: { name?: string; stdout?: boolean; otlpEndpoint?: string }, env: NodeJS.ProcessEnv): StreamTarget {
  const name = flags.name ?? env['SVC_AUDIT_EXPORTER'] ?? 'default';
  if (!AUDIT_STREAM_NAME.test(name))
    throw new TargetError(`--name (or SVC_AUDIT_EXPORTER) must be 1 to 64 of a-z, 0-9, - and _ (got "${name}")`);
  const logs = env['OTEL_EXPORTER_OTLP_LOGS_ENDPOINT'];
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  const [source, raw] =
    flags.otlpEndpoint !== undefined
      ? ['--otlp-endpoint', flags.otlpEndpoint]
      : logs
        ? ['OTEL_EXPORTER_OTLP_LOGS_ENDPOINT', logs]
        : base
          ? // The base variable names the collector; the signal's path is added (`/v1/logs`).
            ['OTEL_EXPORTER_OTLP_ENDPOINT', `${base.replace(/\/+$/, '')}/v1/logs`]
          : [null, null];
  if (flags.stdout && flags.otlpEndpoint !== undefined) throw new TargetError('give --stdout or --otlp-endpoint, not both');
  if (flags.stdout) return { name, kind: 'stdout' };
  if (source === null) throw new TargetError('audit stream needs --stdout or --otlp-endpoint URL (or OTEL_EXPORTER_OTLP_LOGS_ENDPOINT)');
  let endpoint: URL;
  try {
    endpoint = new URL(raw);
  } catch {
    throw new TargetError(`${source} is not a URL`);
  }
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') throw new TargetError(`${source} must be an http or https URL`);
  if (endpoint.username || endpoint.password)
    throw new TargetError(`${source} must not hold credentials: put them in OTEL_EXPORTER_OTLP_HEADERS`);
  return { name, kind: 'otlp', endpoint, headers: headersOf(env), timeoutMs: AUDIT_STREAM_TIMEOUT_MS };
}

/** What a header value may hold once decoded: tab, visible ASCII, space and obs-text bytes. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** OTEL_EXPORTER_OTLP_LOGS_HEADERS, else OTEL_EXPORTER_OTLP_HEADERS: `key=value,...`, values URL-encoded. */
function headersOf(env: NodeJS.ProcessEnv): Record<string, string> {
  const variable = env['OTEL_EXPORTER_OTLP_LOGS_HEADERS'] !== undefined ? 'OTEL_EXPORTER_OTLP_LOGS_HEADERS' : 'OTEL_EXPORTER_OTLP_HEADERS';
  const raw = env[variable] ?? '';
  const out: Record<string, string> = {};
  for (const pair of raw.split(',')) {
    if (!pair.trim()) continue;
    const at = pair.indexOf('=');
    const key = at > 0 ? pair.slice(0, at).trim() : '';
    // The value may be a secret: the message names the variable and the pair's place, never its text.
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) throw new TargetError(`${variable} holds a pair that is not key=value`);
    let value: string;
    try {
      value = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw new TargetError(`${variable}: the value of ${key} is not URL-encoded`);
    }
    // A header value (RFC 9110 §5.5) holds no control character but tab; refused here, never
    // echoed, so the HTTP client never quotes it in an error.
    if (!HEADER_VALUE.test(value)) throw new TargetError(`${variable}: the value of ${key} holds a character a header cannot carry`);
    out[key.toLowerCase()] = value;
  }
  return out;
}
