/** Free loopback ports for the servers tests start. */
import { createServer } from 'node:net';

/** Ports this process has handed out: the kernel may offer a just-closed port again at once. */
const handedOut = new Set<number>();

/** A free loopback port, never one this process already handed out (two in a row could match). */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((ok, fail) => {
      const s = createServer();
      s.once('error', fail);
      s.listen(0, '127.0.0.1', () => {
        const addr = s.address();
        const p = typeof addr === 'object' && addr ? addr.port : 0;
        s.close(() => ok(p));
      });
    });
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}
