/** The baseline of `pnpm bench`: a bare node:http server answering a fixed JSON body. */
import { createServer } from 'node:http';

const size = Number(process.argv[2] ?? 600);
const port = Number(process.argv[3] ?? 0);
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'x'.repeat(Math.max(0, size - 70)) }] } });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString() || '{}');
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write('ready\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
