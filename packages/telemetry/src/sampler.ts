/**
 * The sampler OTEL_TRACES_SAMPLER names (OpenTelemetry SDK environment variables spec; values
 * checked by @svc/config). `parentbased_*` honour the caller's sampled flag in `traceparent`
 * (W3C Trace Context §3.2.2.5) and apply the root sampler only to a request without a parent.
 */
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace';

/** The OTEL_TRACES_SAMPLER values (the same list as @svc/config's TRACES_SAMPLERS). */
export type SamplerName =
  'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';

/** The sampler `name` stands for; `ratio` (0..1) is used by the traceidratio ones only. */
export function samplerOf(name: SamplerName, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}
