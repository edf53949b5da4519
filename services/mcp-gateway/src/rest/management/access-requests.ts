/** The routes of access requests (docs/management.md "Access request lifecycle"). */
import { handle, iso, type ManagementRoute } from './handle.ts';

export const ACCESS_REQUEST_ROUTES: readonly ManagementRoute[] = [
  handle('listAccessRequests', async (m, a, { params, query }) => {
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
  }),
  handle('requestAccess', async (m, a, { params, body }) => {
    const outcome = await m.requestAccess(a, params.project, body);
    return { status: outcome.status === 'pending' && !outcome.updated ? 201 : 200, body: outcome };
  }),
  handle('approveAccessRequest', async (m, a, { params, body }) => {
    await m.decideRequest(a, params.project, params.id, { approve: true, level: body.level });
    return { body: { id: params.id, status: 'approved', level: body.level } };
  }),
  handle('denyAccessRequest', async (m, a, { params }) => {
    await m.decideRequest(a, params.project, params.id, { approve: false });
    return { body: { id: params.id, status: 'denied' } };
  }),
  handle('myAccessRequests', async (m, a, { query }) => {
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
  }),
];
