/**
 * The oidc-provider adapter with each call in a span (docs/operations.md "Traces"): the model and
 * the method, never the id (an id of a token or code is the credential itself).
 */
import { SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { Adapter, AdapterPayload } from 'oidc-provider';

type AdapterClass = new (model: string) => Adapter;

const METHODS = ['upsert', 'find', 'findByUserCode', 'findByUid', 'consume', 'destroy', 'revokeByGrantId'] as const;

/** The adapter class, or one whose calls are spans around the same calls when tracing is on. */
export function tracedAdapter(Base: AdapterClass, tracer: Tracer | null): AdapterClass {
  if (!tracer) return Base;
  const traced = (model: string, method: string, call: () => Promise<AdapterPayload | undefined | void>) =>
    // Outside a sampled request (dropped by the sampler, a probe, a sweep): the call, no span.
    !trace.getActiveSpan()?.isRecording()
      ? call()
      : tracer.startActiveSpan(
          `redis ${model}.${method}`,
          { attributes: { 'db.system.name': 'redis', 'db.operation.name': method, 'svc.oauth.model': model } },
          async (span) => {
            try {
              return await call();
            } catch (err) {
              span.setStatus({ code: SpanStatusCode.ERROR });
              throw err;
            } finally {
              span.end();
            }
          },
        );
  return class TracedAdapter {
    constructor(model: string) {
      const inner = new Base(model) as unknown as Record<string, (...a: unknown[]) => Promise<AdapterPayload | undefined | void>>;
      const self = this as unknown as typeof inner;
      for (const method of METHODS) {
        const call = inner[method];
        if (call) self[method] = (...a: unknown[]) => traced(model, method, () => call.apply(inner, a));
      }
    }
  } as unknown as AdapterClass;
}
