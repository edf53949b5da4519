/** Reading a request body with a size limit, before anything else looks at it. */
import type { IncomingMessage } from 'node:http';
import { SvcError } from '@svc/errors';

/** The whole body as a string; payload_too_large as soon as it passes `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    req.on('error', (err) =>
      reject(new SvcError('invalid_request', { message: 'The request body could not be read', detail: err.message })),
    );
  });
}

function tooLarge(limit: number): SvcError {
  return new SvcError('payload_too_large', { message: `Request body too large: the limit is ${limit} bytes` });
}
