/**
 * The exporter every span leaves through: spans are copied with only the allowed attributes
 * (attributes.ts), no events (an exception event would carry a message), links without
 * attributes, and no `tracestate` (the caller writes it: it is carried, never exported), then
 * handed to the OTLP exporter.
 */
import type { SpanContext } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { filterAttributes } from './attributes.ts';

export class AllowListExporter implements SpanExporter {
  private readonly inner: SpanExporter;
  constructor(inner: SpanExporter) {
    this.inner = inner;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans.map(allowed), done);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

function allowed(span: ReadableSpan): ReadableSpan {
  // The span's own getters stay (its prototype); these own properties shadow them.
  return Object.create(span as object, {
    attributes: { value: filterAttributes(span.attributes) },
    events: { value: [] },
    spanContext: { value: () => withoutState(span.spanContext()) },
    links: { value: span.links.map((l) => ({ context: withoutState(l.context) })) },
  }) as ReadableSpan;
}

function withoutState(ctx: SpanContext): SpanContext {
  return { traceId: ctx.traceId, spanId: ctx.spanId, traceFlags: ctx.traceFlags };
}
