/**
 * startTracing(): OpenTelemetry tracing for one service (docs/operations.md "Traces"), off unless
 * the configuration names an OTLP endpoint. Each service gets its own tracer provider (not the
 * global one), exporting OTLP/HTTP JSON through the allow-list exporter in batches. No
 * auto-instrumentation: the services make their spans by hand, and only when tracing is on.
 */
import { context, type Tracer } from '@opentelemetry/api';
import { MAX_ATTRIBUTE_LENGTH, MAX_ATTRIBUTES_PER_SPAN, MAX_LINKS_PER_SPAN } from './bounds.ts';
import type { SamplerName } from './sampler.ts';

/** Where spans go (from @svc/config's OTEL_* variables). */
export interface TracingConfig {
  /** The OTLP/HTTP traces URL (…/v1/traces). */
  url: string;
  /** OTEL_SERVICE_NAME, else the service's own name. */
  serviceName: string | null;
  /** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG (docs/operations.md "Traces": sampling). */
  sampler: SamplerName;
  ratio: number;
  /** OTEL_EXPORTER_OTLP_HEADERS: sent to the collector only, never logged. */
  headers: Record<string, string>;
}

/** A service's tracing: a tracer when on; null when off, so a call site's check is one comparison. */
export interface Tracing {
  readonly tracer: Tracer | null;
  /** Sends the spans ended so far (tests, and shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

export const TRACING_OFF: Tracing = Object.freeze({
  tracer: null,
  flush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
});

let contextManagerSet = false;

/**
 * Tracing for `service` as configured, or TRACING_OFF when config is null. The SDK is loaded only
 * when tracing is on: loaded, its modules alone made an export of 300,000 audit entries grow the
 * process by 78 MB instead of 20 (docs/operations.md "Traces").
 */
export async function startTracing(config: TracingConfig | null, service: string): Promise<Tracing> {
  if (!config) return TRACING_OFF;
  const [{ AsyncLocalStorageContextManager }, { OTLPTraceExporter }, { resourceFromAttributes }, { BatchSpanProcessor, TracerProvider }] =
    await Promise.all([
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace'),
    ]);
  const [{ AllowListExporter }, { samplerOf }] = await Promise.all([import('./allow-list-exporter.ts'), import('./sampler.ts')]);
  if (!contextManagerSet) {
    // The active span follows async work (a span's log lines, the Redis call it waits on).
    contextManagerSet = context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  }
  const exporter = new AllowListExporter(new OTLPTraceExporter({ url: config.url, headers: config.headers }));
  const provider = new TracerProvider({
    sampler: samplerOf(config.sampler, config.ratio),
    resource: resourceFromAttributes({ 'service.name': config.serviceName ?? service }),
    spanLimits: {
      attributeValueLengthLimit: MAX_ATTRIBUTE_LENGTH,
      attributeCountLimit: MAX_ATTRIBUTES_PER_SPAN,
      linkCountLimit: MAX_LINKS_PER_SPAN,
    },
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  return {
    tracer: provider.getTracer(service),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
