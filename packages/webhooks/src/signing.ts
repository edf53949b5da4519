/**
 * Standard Webhooks signing (https://www.standardwebhooks.com/, "Signature scheme"): the headers
 * `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`, a space-separated list
 * of `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per secret that signs (both during a
 * rotation's overlap). A secret is `whsec_` and the base64 of its 32 random bytes.
 */
import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

/** A new signing secret, `whsec_<base64>`. */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

function sign(secret: string, content: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
}

/** The three headers of one delivery, signed by every secret given. */
export function signedHeaders(secrets: readonly string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  const content = `${id}.${timestampSeconds}.${body}`;
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => sign(s, content)).join(' '),
  };
}
