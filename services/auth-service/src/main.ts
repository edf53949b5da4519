/** auth-service entry point: config, Redis, listen, drain on SIGTERM/SIGINT. */
import { ConfigError, loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { startAuthService } from './server.ts';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`auth-service: ${err.message}\n`);
    process.exit(2);
  }
  throw err;
}
const logger = createLogger({ service: 'auth-service', level: config.logLevel });
let running;
try {
  running = await startAuthService({ config, logger });
} catch (err) {
  logger.error('auth-service could not start', { err });
  process.exit(1);
}

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
