/**
 * Outgoing email (docs/operations.md "Email"): one Mailer for every message the services send.
 * With SMTP_URL it goes over SMTP (nodemailer); without it, outside production, each message is
 * written as a JSON file to the outbox folder (`pnpm demo` names it), so a person can read the
 * link a reset mail carries; with EMAIL=off nothing is sent and the pages say so.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createTransport } from 'nodemailer';
import type { Config } from '@svc/config';

export interface Message {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** False with EMAIL=off: the features that need email say they are unavailable. */
  readonly enabled: boolean;
  /** Where messages go, for a person reading the console: the outbox folder or the SMTP host. */
  readonly describe: string;
  send(message: Message): Promise<void>;
}

export function createMailer(email: Config['email']): Mailer {
  switch (email.mode) {
    case 'off':
      return {
        enabled: false,
        describe: 'email is off (EMAIL=off)',
        async send() {},
      };
    case 'outbox': {
      const dir = resolve(email.dir);
      return {
        enabled: true,
        describe: `email is written to ${dir} (no SMTP_URL)`,
        async send(m) {
          await mkdir(dir, { recursive: true });
          const at = new Date().toISOString();
          await writeFile(
            join(dir, `${at.replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.json`),
            JSON.stringify({ from: email.from, at, ...m }, null, 2),
            { mode: 0o600 },
          );
        },
      };
    }
    case 'smtp': {
      const transport = createTransport(email.url);
      return {
        enabled: true,
        describe: `email is sent through ${new URL(email.url).host}`,
        async send(m) {
          await transport.sendMail({ from: email.from, to: m.to, subject: m.subject, text: m.text });
        },
      };
    }
  }
}
