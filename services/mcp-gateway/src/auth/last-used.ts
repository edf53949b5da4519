/**
 * "Last used" of API keys, recorded in memory on the request path and written to Redis in one
 * pipeline every few seconds, so a request costs no extra round trip for it.
 */
import type { Accounts } from '@svc/accounts';
import type { Logger } from '@svc/logger';

const FLUSH_EVERY_MS = 5_000;

export class LastUsedRecorder {
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private readonly accounts: Accounts;
  private readonly logger: Logger;

  constructor(accounts: Accounts, logger: Logger) {
    this.accounts = accounts;
    this.logger = logger;
  }

  record(keyHash: string): void {
    this.pending.set(keyHash, Date.now());
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.accounts.keys.touch(batch);
    } catch (err) {
      this.logger.warn('could not record key last-used times', { err });
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }
}
