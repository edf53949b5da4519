/**
 * Where batches go: an OTLP/HTTP logs receiver (JSON encoding, OTLP specification "OTLP/HTTP"), or
 * standard output as JSON lines. A batch is accepted when the receiver answers 2xx, or when the
 * stream has taken every line; only then does the exporter move its cursor.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { AUDIT_STREAM_MAX_RESPONSE } from './bounds.ts';
import { jsonLine, OTLP_ENVELOPE_BYTES, otlpBody, otlpRecord, type Exported } from './records.ts';

/** A batch the receiver did not accept: the exporter waits and sends it again. */
export class DeliveryError extends Error {
  override name = 'DeliveryError';
  /** The wait the receiver asked for (Retry-After, ms), if it did. */
  readonly retryAfterMs: number | null;
  constructor(message: string, retryAfterMs: number | null = null) {
    super(message);
    this.retryAfterMs = retryAfterMs;
  }
}

export interface Sink {
  /** One record in the sink's encoding. */
  encode(r: Exported, now: number): string;
  /** Bytes a batch adds around its encoded records (separators count one byte per record). */
  readonly envelopeBytes: number;
  /** Delivers one batch; resolves once it is accepted, else throws DeliveryError. */
  send(records: string[]): Promise<void>;
}

export interface OtlpTarget {
  /** The full logs URL, `.../v1/logs`. */
  endpoint: URL;
  /** Extra request headers (an API key of the collector): never logged. */
  headers: Record<string, string>;
  timeoutMs: number;
}

/** OTLP/HTTP with JSON bodies: POST `application/json` ExportLogsServiceRequest, 2xx accepts. */
export function otlpSink(target: OtlpTarget): Sink {
  return {
    encode: otlpRecord,
    envelopeBytes: OTLP_ENVELOPE_BYTES,
    async send(records) {
      let res: Response;
      const signal = AbortSignal.timeout(target.timeoutMs);
      try {
        res = await fetch(target.endpoint, {
          method: 'POST',
          headers: { ...target.headers, 'content-type': 'application/json' },
          body: otlpBody(records),
          redirect: 'manual',
          signal,
        });
      } catch (err) {
        throw new DeliveryError(signal.aborted ? `no answer within ${target.timeoutMs} ms` : `cannot reach the receiver (${causeOf(err)})`);
      }
      const text = await boundedText(res).catch(() => '');
      if (res.status >= 200 && res.status < 300) return;
      // OTLP/HTTP "Failures": 429 and 503 may carry Retry-After. Every failure is retried (the
      // promise is nothing dropped), the backoff keeps a refusing receiver from being flooded.
      throw new DeliveryError(`the receiver answered ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`, retryAfter(res));
    },
  };
}

/** JSON lines on a stream (stdout for a collector): accepted once the stream has taken them. */
export function linesSink(out: Writable): Sink {
  return {
    encode: (r) => jsonLine(r),
    envelopeBytes: 0,
    async send(records) {
      if (out.destroyed || !out.writable) throw new DeliveryError('the output is closed');
      const done = new Promise<void>((ok, fail) =>
        out.write(records.join(''), (err) => (err ? fail(new DeliveryError(`cannot write: ${err.message}`)) : ok())),
      );
      await done;
      if (out.writableNeedDrain) await once(out, 'drain');
    },
  };
}

function causeOf(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  // A TypeError from the HTTP client may quote a request header, the collector's credentials among them.
  if (cause instanceof TypeError || err instanceof TypeError) return 'the request could not be made';
  return cause instanceof Error ? ((cause as { code?: string }).code ?? cause.message) : String(cause);
}

function retryAfter(res: Response): number | null {
  const v = res.headers.get('retry-after');
  const s = v === null ? NaN : Number(v);
  return Number.isFinite(s) && s >= 0 ? s * 1000 : null;
}

/** The response body, at most AUDIT_STREAM_MAX_RESPONSE bytes of it. */
async function boundedText(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size >= AUDIT_STREAM_MAX_RESPONSE) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, AUDIT_STREAM_MAX_RESPONSE).toString('utf8');
}
