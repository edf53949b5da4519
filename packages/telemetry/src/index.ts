/**
 * OpenTelemetry tracing shared by the services (docs/operations.md "Traces"). The SDK itself is
 * loaded by startTracing() only when tracing is on. And the duration histograms both services
 * export on /metrics, declared once (durations.ts; docs/operations.md "Reading the metrics").
 */
export {
  ALLOWED_ATTRIBUTES,
  filterAttributes,
  HTTP_METHODS,
  httpMethodName,
  MCP_METHODS,
  mcpMethodName,
  OTHER_VALUE,
  spanName,
} from './attributes.ts';
export { MAX_ATTRIBUTE_LENGTH, MAX_ATTRIBUTES_PER_SPAN, MAX_LINKS_PER_SPAN, MAX_TRACESTATE_LENGTH } from './bounds.ts';
export { callerContext, metaOf } from './propagation.ts';
export { startTracing, TRACING_OFF, type Tracing } from './tracing.ts';
export { durationHistograms, HISTOGRAMS, OUTCOMES, REDIS_COMMANDS, ROUTE_CLASSES, type Durations, type RouteClass } from './durations.ts';
