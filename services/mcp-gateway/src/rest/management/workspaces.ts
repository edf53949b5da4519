/** The routes of a workspace's projects, usage and audit log, and of a person's own apps and keys. */
import { ManagementError } from '@svc/management';
import { handle, iso, type ManagementRoute } from './handle.ts';

export const WORKSPACE_ROUTES: readonly ManagementRoute[] = [
  handle('createProject', async (m, a, { params, body }) => {
    const r = await m.createProject(a, { name: body.name.trim(), workspace: params.workspace });
    return { status: 201, body: { slug: r.slug } };
  }),
  handle('usage', async (m, a, { params, query }) => ({ body: await m.usage(a, params.workspace, { days: query.get('days') }) })),
  handle('audit', async (m, a, { params, query }) => {
    const format = query.get('format');
    const filter = { action: query.get('action'), actor: query.get('actor'), from: query.get('from'), to: query.get('to') };
    if (format === 'jsonl') return { stream: await m.auditExport(a, params.workspace, filter) };
    if (format !== null && format !== 'json')
      throw new ManagementError(400, 'The format must be jsonl (the export) or json (a page, the default).', 'format');
    const page = await m.audit(a, params.workspace, { ...filter, cursor: query.get('cursor'), limit: query.get('limit') });
    return { body: { entries: page.entries.map((e) => ({ ...e, at: new Date(e.at).toISOString() })), next: page.next } };
  }),
  handle('factorPolicy', async (m, a, { params }) => ({ body: await m.factorPolicy(a, params.workspace) })),
  handle('setFactorPolicy', async (m, a, { params, body }) => ({ body: await m.setFactorPolicy(a, params.workspace, body.required) })),
  handle('resetFactors', async (m, a, { params }) => ({ body: await m.resetFactors(a, params.workspace, params.user) })),
];

export const ME_ROUTES: readonly ManagementRoute[] = [
  handle('myApps', async (m, a) => ({
    body: {
      apps: (await m.account(a)).apps.map((x) => ({
        id: x.id,
        client: x.client,
        client_id: x.clientId,
        projects: x.projects,
        scopes: x.scopes,
        created_at: iso(x.createdAt),
        expires_at: iso(x.expiresAt),
        last_used_at: iso(x.lastUsedAt),
      })),
    },
  })),
  handle('revokeApp', async (m, a, { params }) => {
    await m.revokeApp(a, params.id);
    return { body: { id: params.id, revoked: true } };
  }),
  handle('revokePersonalKey', async (m, a, { params }) => {
    await m.revokePersonalKey(a, params.id);
    return { body: { id: params.id, revoked: true } };
  }),
];
