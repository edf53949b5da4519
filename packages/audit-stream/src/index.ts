/** The audit log streamed out: OTLP/HTTP logs or JSON lines, one cursor per exporter name and workspace (docs/audit.md "Streaming"). */
export * from './bounds.ts';
export { createExporter, type Exporter, type ExporterTiming } from './exporter.ts';
export { linesSink, otlpSink } from './sinks.ts';
export { exporterStore } from './store.ts';
export { streamTarget, TargetError } from './target.ts';
