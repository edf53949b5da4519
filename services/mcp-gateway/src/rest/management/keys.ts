/**
 * The wire adapters of a project's keys (docs/management.md "Operations"): the list, creation,
 * limit, allow-list and roll answer in the wire's names and times. Disabling, enabling, the note
 * and revoking answer as the layer does.
 */
import type { KeyRow } from '@svc/management';
import { iso, type WireAdapters } from './wire.ts';

/** A key as the list answers it. */
const keyBody = (k: KeyRow) => ({
  id: k.id,
  name: k.name,
  level: k.level,
  prefix: k.prefix,
  status: k.status,
  created_at: iso(k.createdAt),
  expires_at: iso(k.expiresAt),
  last_used_at: iso(k.lastUsedAt),
  rate_limit: k.rateLimit,
  note: k.note,
  allowed_ips: k.allowedIps,
  replaced_by: k.replacedBy,
});

export const KEY_ADAPTERS = {
  listKeys: async (m, a, { params, query }) => {
    const r = await m.listKeys(a, params.project, { status: query.get('status'), q: query.get('q') });
    return { body: { keys: r.keys.map(keyBody), creatable_levels: [...r.creatableLevels] } };
  },
  createKey: async (m, a, { params, body }) => {
    const k = await m.createKey(a, params.project, {
      name: body.name.trim(),
      level: body.level,
      expires: body.expires,
      rateLimit: body.rate_limit ?? null,
      note: body.note ?? '',
      allowedIps: body.allowed_ips ?? [],
    });
    return {
      status: 201,
      body: { id: k.id, key: k.key, name: k.name, level: body.level, expires_at: iso(k.expiresAt), rate_limit: k.rateLimit },
    };
  },
  setKeyLimit: async (m, a, { params, body }) => {
    const k = await m.setKeyLimit(a, params.project, params.id, body.rate_limit);
    return { body: { id: k.id, rate_limit: k.rateLimit } };
  },
  setKeyAllowedIps: async (m, a, { params, body }) => {
    const k = await m.setKeyAllowedIps(a, params.project, params.id, body.allowed_ips);
    return { body: { id: k.id, allowed_ips: k.allowedIps } };
  },
  rollKey: async (m, a, { params, body }) => {
    const k = await m.rollKey(a, params.project, params.id, body.overlap);
    return {
      status: 201,
      body: { id: k.id, key: k.key, name: k.name, level: k.level, expires_at: iso(k.expiresAt), old_key_until: iso(k.replacedUntil) },
    };
  },
} satisfies WireAdapters;
