/** mcp-gateway entry point: config, Redis, listen, drain on SIGTERM. */
import { ConfigError, loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { startGateway } from './server.ts';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`mcp-gateway: ${err.message}\n`);
    process.exit(2);
  }
  throw err;
}
const logger = createLogger({ service: 'mcp-gateway', level: config.logLevel });
const running = await startGateway({ config, logger });

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info('draining', { signal });
    void running.close().then(() => process.exit(0));
    setTimeout(() => process.exit(1), 10_000).unref();
  });
}
