/**
 * The wire adapters of access requests (docs/management.md "Access request lifecycle"): the lists
 * answer in the wire's names and times; asking answers 201 for a new request. Approving and
 * denying answer as the layer does.
 */
import { iso, type WireAdapters } from './wire.ts';

export const ACCESS_REQUEST_ADAPTERS = {
  listAccessRequests: async (m, a, { params, query }) => {
    const page = await m.listAccessRequests(a, params.project, { cursor: query.get('cursor'), limit: query.get('limit') });
    const requests = page.requests.map((r) => ({
      id: r.id,
      requester: r.requester,
      level: r.level,
      reason: r.reason,
      status: r.status,
      created_at: iso(r.createdAt),
      granted_level: r.grantedLevel,
      decided_by: r.decidedBy,
      decided_at: iso(r.decidedAt),
    }));
    return { body: { requests, next_cursor: page.next } };
  },
  requestAccess: async (m, a, { params, body }) => {
    const outcome = await m.requestAccess(a, params.project, body);
    return { status: outcome.status === 'pending' && !outcome.updated ? 201 : 200, body: outcome };
  },
  myAccessRequests: async (m, a, { query }) => {
    const page = await m.myAccessRequests(a, { cursor: query.get('cursor'), limit: query.get('limit') });
    const requests = page.requests.map((r) => ({
      id: r.id,
      project: r.project,
      level: r.level,
      status: r.status,
      granted_level: r.grantedLevel,
      created_at: iso(r.createdAt),
      decided_at: iso(r.decidedAt),
    }));
    return { body: { requests, next_cursor: page.next } };
  },
} satisfies WireAdapters;
