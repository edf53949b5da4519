/**
 * The HTTP server's bounds (docs/security.md "Bounds"), on a real server with short limits: headers
 * past the size limit get 431, a connection slow to send its headers or its body gets 408 and is
 * closed, an idle keep-alive connection is closed, and connections past the limit are refused.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { createBoundedServer, HTTP_SERVER_BOUNDS, type HttpServerBounds } from '../src/http-server.ts';

const BOUNDS: HttpServerBounds = {
  ...HTTP_SERVER_BOUNDS,
  headersTimeoutMs: 300,
  requestTimeoutMs: 600,
  keepAliveTimeoutMs: 300,
  maxConnections: 20,
  checkIntervalMs: 50,
};

let port = 0;
const server = createBoundedServer((req, res) => {
  req.resume();
  req.on('end', () => res.end('ok'));
}, BOUNDS);
before(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

/** Opens a connection, writes `text`, and resolves with everything read until the server closes it and how long that took. */
async function exchange(text: string, socket: Socket = connect(port, '127.0.0.1')): Promise<{ reply: string; ms: number }> {
  const started = performance.now();
  await once(socket, 'connect');
  let reply = '';
  socket.on('data', (d: Buffer) => (reply += d.toString('latin1')));
  socket.on('error', () => {});
  socket.write(text);
  await once(socket, 'close');
  return { reply, ms: performance.now() - started };
}

test('headers past the size limit get 431 naming the limit, read by the client whole', async () => {
  for (const size of [BOUNDS.maxHeaderBytes + 1, 70 * 1024, 1024 * 1024]) {
    const { reply } = await exchange(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(size)}\r\n\r\n`);
    assert.match(reply, /^HTTP\/1\.1 431 /, `${size} bytes of header`);
    assert.match(reply, new RegExp(`larger than the limit \\(${BOUNDS.maxHeaderBytes} bytes\\)`));
  }
});

test('a connection that never finishes its headers is answered 408 and closed within the limit', async () => {
  const { reply, ms } = await exchange('GET / HTTP/1.1\r\nHost: x\r\n');
  assert.match(reply, /^HTTP\/1\.1 408 /);
  assert.ok(ms < BOUNDS.headersTimeoutMs + 3 * BOUNDS.checkIntervalMs + 500, `closed after ${ms} ms`);
});

test('a body that never arrives is answered 408 and closed within the request limit', async () => {
  const { reply, ms } = await exchange('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc');
  assert.match(reply, /^HTTP\/1\.1 408 /);
  assert.ok(ms < BOUNDS.requestTimeoutMs + 3 * BOUNDS.checkIntervalMs + 500, `closed after ${ms} ms`);
});

test('an idle keep-alive connection is closed after the keep-alive limit', async () => {
  const { reply, ms } = await exchange('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.match(reply, /^HTTP\/1\.1 200 /);
  // Node adds its keepAliveTimeoutBuffer (1 s) to the limit.
  assert.ok(ms >= BOUNDS.keepAliveTimeoutMs - 50 && ms < BOUNDS.keepAliveTimeoutMs + 2_000, `closed after ${ms} ms`);
});

test('connections past the limit are closed at once; the ones held keep working', async () => {
  const held = await Promise.all(
    Array.from({ length: BOUNDS.maxConnections }, async () => {
      const s = connect(port, '127.0.0.1');
      s.on('error', () => {});
      await once(s, 'connect');
      return s;
    }),
  );
  // The server counts a connection once it accepts it: wait until it holds them all.
  while ((await new Promise<number>((ok) => server.getConnections((_e, n) => ok(n)))) < BOUNDS.maxConnections)
    await new Promise((r) => setImmediate(r));
  const extra = await exchange('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.equal(extra.reply, '', 'the connection past the limit is closed without an answer');
  const first = held[0]!;
  let reply = '';
  first.on('data', (d: Buffer) => (reply += d.toString('latin1')));
  first.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  await once(first, 'close');
  assert.match(reply, /^HTTP\/1\.1 200 /);
  for (const s of held) s.destroy();
});
