/**
 * The winston logger every service uses. Every string that leaves it passes redact(): any
 * credential shape is cut to its display prefix, and fields named like secrets are dropped.
 */
import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import winston from 'winston';

const CREDENTIAL = /\b(svc-bot-|svc-user-|svc-scim-|svc_at_|svc_rt_|rlm_team_|rlm_pk_|svc-)([0-9A-Za-z]{4})[0-9A-Za-z]{4,}/g;
const SECRET_FIELD = /pass(word)?|secret|token|api[-_]?key|authorization|cookie|pepper|code_verifier|device_code/i;

/** A string with every credential shape reduced to its prefix and four characters. */
function redactString(s: string): string {
  return s.replace(CREDENTIAL, '$1$2…');
}

/** A deep copy of a value with secrets removed (field names) and credential shapes cut (strings). */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactString(value);
  if (value === null || typeof value !== 'object' || depth > 6) return value;
  if (value instanceof Error) return { name: value.name, message: redactString(value.message) };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_FIELD.test(k) && typeof v === 'string' ? '[redacted]' : redact(v, depth + 1);
  }
  return out;
}

const redaction = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (key === 'level') continue;
    const v = (info as Record<string, unknown>)[key];
    (info as Record<string, unknown>)[key] = SECRET_FIELD.test(key) && typeof v === 'string' ? '[redacted]' : redact(v);
  }
  return info;
});

/**
 * A line written inside a span names its trace and span (docs/operations.md "Traces"), so a log
 * line and a trace find each other. With tracing off no span is ever active: nothing is added.
 */
const traceIds = winston.format((info) => {
  const span = trace.getSpanContext(context.active());
  if (span && isSpanContextValid(span)) {
    info['trace_id'] = span.traceId;
    info['span_id'] = span.spanId;
  }
  return info;
});

export type Logger = winston.Logger;

export interface LoggerOptions {
  service: string;
  level?: string;
  /** Extra transport (tests capture output with a stream transport). */
  stream?: NodeJS.WritableStream;
  silent?: boolean;
  /** `json` (default): one JSON object a line. `text`: `time service level message key=value ...`. */
  format?: 'json' | 'text';
}

/** One readable line: the time, the service, the level, the message, then the fields. */
const textLine = winston.format.printf((info) => {
  const { level, message, timestamp, service, ...fields } = info;
  const rest = Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : v instanceof Error ? v.message : JSON.stringify(v)}`)
    .join(' ');
  const time = typeof timestamp === 'string' ? timestamp.slice(11, 19) : '';
  return `${time} ${String(service)} ${level}: ${String(message)}${rest ? ` ${rest}` : ''}`;
});

/** A JSON-lines logger with redaction, writing to stderr unless a stream is given. */
export function createLogger(options: LoggerOptions): Logger {
  const transport = options.stream
    ? new winston.transports.Stream({ stream: options.stream })
    : new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] });
  return winston.createLogger({
    level: options.level ?? 'info',
    silent: options.silent ?? false,
    defaultMeta: { service: options.service },
    format: winston.format.combine(
      redaction(),
      traceIds(),
      winston.format.timestamp(),
      options.format === 'text' ? textLine : winston.format.json(),
    ),
    transports: [transport],
  });
}
