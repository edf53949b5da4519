/**
 * The entry point every service shares: load and validate the configuration (a bad value exits 2
 * with the variable's name, nothing else on stderr), start, and drain on SIGTERM/SIGINT within
 * ten seconds (Kubernetes' grace period is longer; docs/operations.md).
 */
import { ConfigError, loadConfig, type Config } from './index.ts';

export interface ServiceLogger {
  info(message: string, meta?: Record<string, unknown>): unknown;
  error(message: string, meta?: Record<string, unknown>): unknown;
}

export interface Running {
  /** Stop being ready and keep serving for a notice period (docs/operations.md "Rolling restarts"). */
  drain?(): Promise<void>;
  close(): Promise<void>;
}

export async function runService<L extends ServiceLogger>(
  name: string,
  makeLogger: (config: Config) => L,
  start: (config: Config, logger: L) => Promise<Running>,
): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${name}: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = makeLogger(config);
  let running: Running;
  try {
    running = await start(config, logger);
  } catch (err) {
    logger.error(`${name} could not start`, { err });
    process.exit(1);
  }
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      logger.info('draining', { signal });
      void (async () => {
        await running.drain?.();
        await running.close();
        process.exit(0);
      })();
      setTimeout(() => process.exit(1), 10_000).unref();
    });
  }
}
