/** Which credential a request carries: X-API-Key, else Authorization: Bearer. */
import type { IncomingHttpHeaders } from 'node:http';

export interface PresentedCredential {
  value: string;
  via: 'x-api-key' | 'bearer';
}

/** The credential presented, '' when a header is there but empty, null when none is. */
export function credentialFrom(headers: IncomingHttpHeaders): PresentedCredential | null {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string') return { value: apiKey.trim(), via: 'x-api-key' };
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(.*)$/i.exec(auth.trim());
    return { value: m ? (m[1] ?? '').trim() : '', via: 'bearer' };
  }
  return null;
}
