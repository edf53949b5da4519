/**
 * The exporter every span leaves through: spans are copied with only the allowed attributes,
 * each value from its fixed set, and a name of the service's own (attributes.ts), no events (an exception event would carry a message), links without
 * attributes, and no `tracestate` (the caller writes it: it is carried, never exported), then
 * handed to the OTLP exporter.
 */
import type { SpanContext } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { filterAttributes, spanName } from './attributes.ts';

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

/** A plain copy (what the OTLP transformer reads), cheaper than a proxy of the SDK's span. */
function allowed(span: ReadableSpan): ReadableSpan {
  const context = withoutState(span.spanContext());
  return {
    name: spanName(span.name),
    kind: span.kind,
    spanContext: () => context,
    ...(span.parentSpanContext ? { parentSpanContext: span.parentSpanContext } : {}),
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    attributes: filterAttributes(span.attributes),
    links: span.links.length ? span.links.map((l) => ({ context: withoutState(l.context) })) : [],
    events: [],
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

function withoutState(ctx: SpanContext): SpanContext {
  return { traceId: ctx.traceId, spanId: ctx.spanId, traceFlags: ctx.traceFlags };
}
