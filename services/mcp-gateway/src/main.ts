/** mcp-gateway entry point: config, Redis, listen, drain on SIGTERM/SIGINT. */
import { runService } from '@svc/config/run-service.ts';
import { createLogger } from '@svc/logger';
import { startGateway } from './server.ts';

await runService(
  'mcp-gateway',
  (config) => createLogger({ service: 'mcp-gateway', level: config.logLevel, format: config.logFormat }),
  (config, logger) => startGateway({ config, logger }),
);
