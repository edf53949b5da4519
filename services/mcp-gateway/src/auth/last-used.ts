/**
 * "Last used" of API keys and of people's OAuth grants (the account page's apps), recorded in
 * memory on the request path and written to Redis every few seconds, so a request costs no extra
 * round trip for it.
 */
import type { Accounts } from '@svc/accounts';
import type { Logger } from '@svc/logger';

const FLUSH_EVERY_MS = 5_000;

export class LastUsedRecorder {
  private pending = new Map<string, number>();
  /** Person → grant → Unix ms. */
  private grants = new Map<string, Map<string, number>>();
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

  recordGrant(userId: string, grantId: string): void {
    let mine = this.grants.get(userId);
    if (!mine) this.grants.set(userId, (mine = new Map()));
    mine.set(grantId, Date.now());
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    const [keys, grants] = [this.pending, this.grants];
    this.pending = new Map();
    this.grants = new Map();
    try {
      if (keys.size > 0) await this.accounts.keys.touch(keys);
      if (grants.size > 0) await this.accounts.oauthGrants.touch(grants);
    } catch (err) {
      this.logger.warn('could not record last-used times', { err });
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }
}
