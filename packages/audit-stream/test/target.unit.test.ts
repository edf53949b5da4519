/**
 * The exporter's target (docs/audit.md "Streaming"): the collector's headers may be secrets, so a
 * value a header cannot carry is refused at start, naming the variable and the key, never the value.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { streamTarget, TargetError } from '../src/target.ts';

const endpoint = { otlpEndpoint: 'https://collector.example/v1/logs' };

test('header values a header cannot carry are refused without echoing them; good ones are decoded', () => {
  const secret = 's3cr3t-token';
  for (const bad of ['%0A', '%0D%0Ax-evil: 1', '%00', '%7F', '%E2%80%AE']) {
    const value = `Bearer%20${secret}${bad}`;
    assert.throws(
      () => streamTarget(endpoint, { OTEL_EXPORTER_OTLP_HEADERS: `authorization=${value}` }),
      (err: unknown) =>
        err instanceof TargetError &&
        /OTEL_EXPORTER_OTLP_HEADERS: the value of authorization/.test(err.message) &&
        !err.message.includes(secret),
      bad,
    );
  }
  const ok = streamTarget(endpoint, { OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${secret},x-tenant=a%09b` });
  assert.equal(ok.kind, 'otlp');
  assert.deepEqual(ok.kind === 'otlp' ? ok.headers : null, { authorization: `Bearer ${secret}`, 'x-tenant': 'a\tb' });
});
