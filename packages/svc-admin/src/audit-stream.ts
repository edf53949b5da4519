/**
 * `svc-admin audit stream`: the long-running audit exporter (docs/audit.md "Streaming",
 * docs/operations.md "Streaming the audit log"). Runs until SIGTERM or SIGINT, then ends after the
 * batch in flight and gives its lease up. Its own messages go to stderr: stdout is the JSON lines
 * of `--stdout`.
 */
import type { Redis } from '@svc/accounts';
import { createExporter, linesSink, otlpSink, streamTarget } from '@svc/audit-stream';
import { createLogger } from '@svc/logger';
import type { Options } from './command-kit.ts';

/** Parses the target (a TargetError names the bad flag or variable), then exports until a signal. */
export async function auditStream(redis: Redis, o: Options): Promise<void> {
  const target = streamTarget(
    {
      ...(typeof o['name'] === 'string' ? { name: o['name'] } : {}),
      stdout: o['stdout'] === true,
      ...(typeof o['otlp-endpoint'] === 'string' ? { otlpEndpoint: o['otlp-endpoint'] } : {}),
    },
    process.env,
  );
  const log = createLogger({ service: 'svc-admin' });
  const sink = target.kind === 'stdout' ? linesSink(process.stdout) : otlpSink(target);
  const exporter = createExporter({ redis, name: target.name, sink, log });
  const stop = () => void exporter.stop();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  log.info('audit exporter: started', { name: target.name, to: target.kind === 'stdout' ? 'stdout' : target.endpoint.origin });
  await exporter.run();
  log.info('audit exporter: stopped', { name: target.name });
}
