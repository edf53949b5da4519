/**
 * The floor of `pnpm bench` (docs/benchmarks.md, "2026-11-28 (second entry): the floor"): the
 * bare server plus the least work any server answering the gateway's hot path under its contract
 * must do, written as plainly as it can be, and nothing else:
 * - the body read and parsed under the JSON bounds;
 * - a SHA-256 of the X-API-Key and an in-process cache lookup;
 * - the JSON-RPC envelope's fields checked;
 * - one call of the gateway's own admit script (the exact limiter, the month's and the day's
 *   usage, the caller's tool budget: docs/operations.md "Limits for agents") per workspace and
 *   turn of the event loop, on a client that batches each turn's writes;
 * - the answer with the gateway's headers (the request id, the five rate-limit fields) around a
 *   result of the same size.
 * No policy, no tools, no metrics, no error paths: what the gateway does beyond this is what it
 * could still save; what this does beyond the bare server, every implementation of the contract
 * must do. With FLOOR_LIMITER=local the turn's charges are counted in the process instead, as an
 * inexact per-replica limiter would: what the shared limiter's round trip itself costs.
 *   argv: answer size in bytes, port; env: REDIS_URL, FLOOR_LIMITER (shared, the default, or local)
 */
import { createServer } from 'node:http';
import { hash, randomUUID } from 'node:crypto';
import { connectRedis, K, USAGE_DAY_TTL_SECONDS, WINDOWS } from '@svc/accounts';
import { parseJson } from '../packages/bounds/src/index.ts';
import { runScript } from '../packages/limits/src/index.ts';
import { ADMIT } from '../services/mcp-gateway/src/ratelimit/admit-script.ts';

const size = Number(process.argv[2] ?? 600);
const port = Number(process.argv[3] ?? 0);

const LOCAL = process.env['FLOOR_LIMITER'] === 'local';
const redis = LOCAL ? null : connectRedis(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379', { batchWrites: true, name: 'bench-floor' });
const LIMIT = 2_000_000_000;
let counted = 0;
const WORKSPACE = 'bench-floor';
const result = JSON.stringify({ content: [{ type: 'text', text: 'x'.repeat(Math.max(0, size - 70)) }] });
/** Credentials seen, by their digest: the bench's one key is always a hit after the first request. */
const known = new Set<string>();
/** The charges of this turn: each is answered with its minute's count, or null when Redis failed. */
let waiting: ((used: number | null) => void)[] = [];

/** One script call for the charges of this turn: one run of alike charges, as the gateway sends them. */
function flush(): void {
  const batch = waiting;
  waiting = [];
  if (redis === null) {
    for (const answer of batch) answer(++counted);
    return;
  }
  const t = Date.now();
  const month = WINDOWS.month(t);
  const keys = [
    K.rateMinute(WORKSPACE, WINDOWS.minute(t)),
    K.rateMonth(WORKSPACE, month),
    K.usage(WORKSPACE, month),
    K.usageDay(WORKSPACE, WINDOWS.day(t)),
    K.rateAgentMinute(WORKSPACE, 't:k-floor', WINDOWS.minute(t)),
  ];
  // One run of the batch's charges, alike: the key's field, the tool's, no proof, and the one agent
  // bucket a key's tools/call spends (its caller's tool budget: index 5 in KEYS, its limit, cost 1).
  const args = [LIMIT, 120, -1, '0', 40 * 86_400, 1, USAGE_DAY_TTL_SECONDS, 600];
  args.push(batch.length, '0', 0, -1, 'key:floor', 'tool:svc_help', 0, 1, 5, LIMIT, 1);
  (runScript(redis, ADMIT, keys, args) as Promise<number[]>).then(
    (out) => batch.forEach((answer, i) => answer(out[i * 4 + 1]!)),
    () => batch.forEach((answer) => answer(null)),
  );
}

/** The JSON-RPC request in `text`, or null when it is not one (bounds, syntax, envelope). */
function envelope(text: string): Record<string, unknown> | null {
  try {
    const body = parseJson(text) as Record<string, unknown> | null;
    return body !== null && body['jsonrpc'] === '2.0' && typeof body['method'] === 'string' ? body : null;
  } catch {
    return null;
  }
}

const admit = (): Promise<number | null> =>
  new Promise((resolve) => {
    if (waiting.length === 0) setImmediate(flush);
    waiting.push(resolve);
  });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const rpc = envelope(chunks.length === 1 ? chunks[0]!.toString() : Buffer.concat(chunks).toString());
    const digest = hash('sha256', String(req.headers['x-api-key']));
    if (!known.has(digest)) known.add(digest);
    // The bench's own readiness probe (an empty GET) and anything malformed.
    if (rpc === null) {
      res.writeHead(400).end();
      return;
    }
    void admit().then((used) => {
      if (used === null) {
        res.writeHead(503).end();
        return;
      }
      const t = Date.now();
      const reset = (WINDOWS.minute(t) + 1) * 60;
      const text = `{"jsonrpc":"2.0","id":${JSON.stringify(rpc['id'])},"result":${result}}`;
      res.writeHead(200, {
        'X-Request-Id': randomUUID(),
        'X-RateLimit-Limit': LIMIT,
        'X-RateLimit-Remaining': LIMIT - used,
        'X-RateLimit-Reset': reset,
        'RateLimit-Policy': `"minute";q=${LIMIT};w=60`,
        RateLimit: `"minute";r=${LIMIT - used};t=${Math.ceil(reset - t / 1000)}`,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(text),
        'Cache-Control': 'no-store',
      });
      res.end(text);
    });
  });
});
server.listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => (redis?.disconnect(), process.exit(0))));
