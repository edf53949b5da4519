/**
 * The wire adapters of a workspace's audit log and of a person's apps: the audit log's page with
 * the wire's times, or its export as a stream of JSON lines (`format=jsonl`); the apps in the
 * wire's names and times. Creating a project, usage, the factor policy and reset, and revoking an
 * app or a personal key answer as the layer does.
 */
import { ManagementError } from '@svc/management';
import { iso, type WireAdapters } from './wire.ts';

export const WORKSPACE_ADAPTERS = {
  audit: async (m, a, { params, query }) => {
    const format = query.get('format');
    const filter = { action: query.get('action'), actor: query.get('actor'), from: query.get('from'), to: query.get('to') };
    if (format === 'jsonl') return { stream: await m.auditExport(a, params.workspace, filter) };
    if (format !== null && format !== 'json')
      throw new ManagementError(400, 'The format must be jsonl (the export) or json (a page, the default).', 'format');
    const page = await m.audit(a, params.workspace, { ...filter, cursor: query.get('cursor'), limit: query.get('limit') });
    return { body: { entries: page.entries.map((e) => ({ ...e, at: new Date(e.at).toISOString() })), next: page.next } };
  },
} satisfies WireAdapters;

export const ME_ADAPTERS = {
  myApps: async (m, a) => ({
    body: {
      apps: (await m.myApps(a)).map((x) => ({
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
  }),
} satisfies WireAdapters;
