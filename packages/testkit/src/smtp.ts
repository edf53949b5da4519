/**
 * A real local SMTP server that keeps what it receives, for tests of the mail the services send
 * (password reset, email confirmation, notices). Plain SMTP on loopback: no TLS, no AUTH.
 */
import { SMTPServer } from 'smtp-server';
import { freePort } from './ports.ts';

export interface Mail {
  /** The envelope's recipients, comma-separated. */
  to: string;
  /** The raw message with quoted-printable soft breaks and `=3D` undone, so links read whole. */
  text: string;
}

export interface SmtpInbox {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  /** Every message received so far, in order. */
  mails: Mail[];
  close(): Promise<void>;
}

export async function startSmtpInbox(): Promise<SmtpInbox> {
  const port = await freePort();
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, session, done) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString()));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), text: raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=') });
        done();
      });
    },
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  return { url: `smtp://127.0.0.1:${port}`, mails, close: () => new Promise<void>((ok) => server.close(ok)) };
}
