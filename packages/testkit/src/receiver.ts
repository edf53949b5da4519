/**
 * A local HTTP receiver that keeps every request it gets (headers and body), for tests of what svc
 * sends out (webhook deliveries). It answers each with the next status of `answers`, else 200.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: Record<string, string>;
  body: string;
}

export interface HttpReceiver {
  /** Where to send: `http://127.0.0.1:<port>/hook`. */
  url: string;
  received: ReceivedRequest[];
  /** Statuses for the next requests, in order; 200 once they run out. */
  answers: number[];
  close(): Promise<void>;
}

export async function startHttpReceiver(): Promise<HttpReceiver> {
  const received: ReceivedRequest[] = [];
  const answers: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = answers.shift() ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    answers,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
