/**
 * Writes the audit export to an HTTP response as it is read (docs/audit.md "Export"): one chunk
 * per Redis read, the next read only after the socket took the last chunk ('drain'), so memory
 * stays bounded at any log size and a slow client slows the export, not the server.
 * - A failure before the first byte is the caller's to answer (503): nothing was written yet.
 * - A failure after it cuts the response (the connection is destroyed): the body lacks the
 *   closing `{"complete":true,...}` line, which is how a client tells a cut export.
 */
import type { ServerResponse } from 'node:http';

type ExportOutcome = { complete: true } | { complete: false; error?: unknown };

/**
 * Streams `chunks` to `res`; `head` sets the status and headers once the first chunk is read.
 * Throws only when the first read fails; a later failure (or the client leaving) is the outcome.
 */
export async function streamExport(res: ServerResponse, chunks: AsyncIterable<string>, head: () => void): Promise<ExportOutcome> {
  const reader = chunks[Symbol.asyncIterator]();
  let next = await reader.next();
  head();
  try {
    while (!next.done) {
      if (!res.write(next.value)) await drained(res);
      if (res.destroyed) {
        await reader.return?.();
        return { complete: false };
      }
      next = await reader.next();
    }
  } catch (error) {
    res.destroy();
    return { complete: false, error };
  }
  res.end();
  return { complete: true };
}

/** Resolves when the socket wants more, or when it is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
