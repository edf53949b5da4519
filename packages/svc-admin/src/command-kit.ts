/**
 * What every svc-admin command shares (docs/contract.md "Operator interface"): its parsed options,
 * what it may ask of whoever runs it, its signature, and the usage error that names a wrong or
 * missing option. The command tables (commands.ts, trusted-issuers.ts, sso-commands.ts,
 * upstreams.ts) build on it.
 */
import { randomUUID } from 'node:crypto';
import type { Accounts } from '@svc/accounts';
import type { Actor, Management } from '@svc/management';

/** The parsed command-line options: `--name value` or a bare `--flag`. */
export type Options = Record<string, string | boolean | undefined>;
/** What a command may ask of the person or script running it. */
export interface CommandIo {
  /** The password given on standard input or typed at a prompt; null when neither was possible. */
  password(): Promise<string | null>;
  /** The management layer, for the commands the API shares: the same rules, audit and answer. */
  management: Management;
}

/** A command: the account stores, its options and io in; the one JSON object it prints with --json out. */
export type Command = (accounts: Accounts, o: Options, io: CommandIo) => Promise<Record<string, unknown>>;

/** A wrong or missing option: svc-admin reports it as a `usage` error naming the option (main.ts). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The value of option `--name`; a UsageError naming it when absent. */
export function req(o: Options, name: string): string {
  const v = o[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

/** The operator as the management layer's actor, for the commands the API shares: each project's ADMIN, audited as `service:svc-admin`. */
export const operatorActor = (): Actor => ({ kind: 'operator', label: 'service:svc-admin', source: 'svc-admin', requestId: randomUUID() });
