/** auth-service entry point: config, Redis, listen, drain on SIGTERM/SIGINT. */
import { runService } from '@svc/config/run-service.ts';
import { createLogger } from '@svc/logger';
import { startAuthService } from './server.ts';

await runService(
  'auth-service',
  (config) => createLogger({ service: 'auth-service', level: config.logLevel, format: config.logFormat }),
  (config, logger) => startAuthService({ config, logger }),
);
