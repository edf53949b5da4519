/** OpenTelemetry tracing shared by the services (docs/operations.md "Traces"). */
export { ALLOWED_ATTRIBUTES, filterAttributes } from './attributes.ts';
export { MAX_ATTRIBUTE_LENGTH, MAX_ATTRIBUTES_PER_SPAN, MAX_LINKS_PER_SPAN, MAX_TRACESTATE_LENGTH } from './bounds.ts';
export { callerContext, metaOf } from './propagation.ts';
export { samplerOf } from './sampler.ts';
export { startTracing, TRACING_OFF, type Tracing } from './tracing.ts';
