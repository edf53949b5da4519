/** Which credential a request carries: X-API-Key, else Authorization: Bearer or DPoP (RFC 9449 §7.1). */
import type { IncomingHttpHeaders } from 'node:http';

export interface PresentedCredential {
  value: string;
  via: 'x-api-key' | 'bearer' | 'dpop';
}

/** The credential presented, '' when a header is there but empty, null when none is. */
export function credentialFrom(headers: IncomingHttpHeaders): PresentedCredential | null {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string') return { value: apiKey.trim(), via: 'x-api-key' };
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^(Bearer|DPoP)\s+(.*)$/i.exec(auth.trim());
    if (!m) return { value: '', via: 'bearer' };
    return { value: (m[2] ?? '').trim(), via: m[1]!.length === 4 ? 'dpop' : 'bearer' };
  }
  return null;
}
