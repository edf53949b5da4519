/**
 * A small OTLP/HTTP logs receiver for the tests: POST /v1/logs with a JSON ExportLogsServiceRequest,
 * parsed and kept. `answer` decides each request: accept, fail with a status, or hold it unanswered.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRecord {
  eventName: string;
  severityText: string;
  body: string;
  attributes: Record<string, unknown>;
  timeUnixNano: string;
}

export type Answer = 'accept' | 'hang' | number;

export interface OtlpReceiver {
  url: string;
  /** Records of the accepted requests, in arrival order. */
  accepted: ReceivedRecord[];
  /** Every request's record count and body size, with what it was answered. */
  requests: { records: number; bytes: number; answer: Answer }[];
  answer: (n: number) => Answer;
  close(): Promise<void>;
}

function valueOf(v: Record<string, unknown>): unknown {
  if ('stringValue' in v) return v['stringValue'];
  if ('intValue' in v) return Number(v['intValue']);
  const kv = v['kvlistValue'] as { values: { key: string; value: Record<string, unknown> }[] };
  return Object.fromEntries(kv.values.map((e) => [e.key, valueOf(e.value)]));
}

export async function startOtlpReceiver(port = 0): Promise<OtlpReceiver> {
  const held = new Set<ServerResponse>();
  const r: OtlpReceiver = {
    url: '',
    accepted: [],
    requests: [],
    answer: () => 'accept',
    close: () =>
      new Promise((ok) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      if (req.url !== '/v1/logs' || req.method !== 'POST' || req.headers['content-type'] !== 'application/json') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw.toString('utf8')) as {
        resourceLogs: { scopeLogs: { logRecords: Record<string, unknown>[] }[] }[];
      };
      const records = body.resourceLogs.flatMap((rl) =>
        rl.scopeLogs.flatMap((sl) =>
          sl.logRecords.map((lr) => ({
            eventName: lr['eventName'] as string,
            severityText: lr['severityText'] as string,
            body: (lr['body'] as { stringValue: string }).stringValue,
            timeUnixNano: lr['timeUnixNano'] as string,
            attributes: Object.fromEntries(
              (lr['attributes'] as { key: string; value: Record<string, unknown> }[]).map((a) => [a.key, valueOf(a.value)]),
            ),
          })),
        ),
      );
      const answer = r.answer(r.requests.length);
      r.requests.push({ records: records.length, bytes: raw.length, answer });
      if (answer === 'hang') {
        held.add(res);
        return;
      }
      if (answer !== 'accept') {
        res.writeHead(answer, { 'content-type': 'application/json' }).end('{"message":"try later"}');
        return;
      }
      r.accepted.push(...records);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/logs`;
  return r;
}

/** How many times each audit id arrived. */
export function countsById(records: ReceivedRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const rec of records) {
    const id = String(rec.attributes['svc.audit.id']);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}
