/**
 * Project > Upstream servers routes (docs/dashboard.md, docs/upstream-servers.md), the project
 * admins': the list and "Add server", a server's page, its refresh and its removal (confirmed
 * first). Each calls the management layer's upstream operation, so the rules the operation declares
 * (a recent second factor and a confirmed address to add, the audit entry) are the API's; a
 * step-up comes back to the page the form was on.
 */
import type { Request, Response, Router } from 'express';
import { StepUpRequired, type Actor } from '@svc/management';
import { STEP_UP_MINUTES } from '@svc/management/contract';
import { render } from '../../ui/html.ts';
import { formOf } from '../form.ts';
import { back, confirmed, field, param, type Done, type Kit } from '../kit.ts';
import { confirmPage } from '../parts.ts';
import { UPSTREAM_FORMS } from './forms.ts';
import { removeEnds, upstreamPage } from './server-view.ts';
import { upstreamPath, upstreamsPath, upstreamsPage, type SentServer } from './view.ts';

/**
 * `work`, an operation that may declare step-up: when it asks for one, the browser steps up and
 * comes back to `page` (the form's own page) rather than the section's first.
 */
export async function steppingUpTo<T>(page: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof StepUpRequired) throw new StepUpRequired(page, STEP_UP_MINUTES);
    throw err;
  }
}

/** What a refresh found, said on the server's page it returns to. */
const refreshed = (v: { upstream: { problem: string | null }; flagged?: string[] }): Done =>
  v.upstream.problem ? 'upstream-refresh-problem' : v.flagged?.length ? 'upstream-refreshed-flagged' : 'upstream-refreshed';

export function upstreamsRoutes(router: Router, { deps, page$, frame, submit, now }: Kit): void {
  const m = deps.management;
  const issuer = deps.baseUrl;

  async function list(req: Request, res: Response, actor: Actor) {
    const slug = param(req, 'slug');
    const servers = await m.listUpstreams(actor, slug);
    const f = await frame(req, res, actor, 'upstreams', { project: slug });
    render(res, upstreamsPage(f, { servers, now: now(), issuer }));
  }

  /** The removal's confirmation (its GET, or a POST without `confirm=yes`): docs/dashboard.md "Confirmation". */
  async function confirmRemoval(req: Request, res: Response, actor: Actor) {
    const [slug, name] = [param(req, 'slug'), param(req, 'name')];
    const view = await m.getUpstream(actor, slug, name);
    const f = await frame(req, res, actor, 'upstreams', { project: slug });
    const page = { title: 'Remove upstream server', ends: removeEnds(view, slug), button: 'Remove server' };
    render(res, confirmPage(f, { ...page, action: `${upstreamPath(slug, name)}/remove`, cancel: upstreamPath(slug, name) }));
  }

  router.get('/projects/:slug/upstreams', page$(list));
  router.post(
    UPSTREAM_FORMS.add.path,
    page$(async (req, res, actor) => {
      const slug = param(req, 'slug');
      // Shown again on a refusal: every field but the credential's value, which no page holds.
      const sent: SentServer = {
        name: field(req, 'name').trim(),
        url: field(req, 'url').trim(),
        timeout: field(req, 'timeout'),
        header: field(req, 'credential_header').trim(),
      };
      await submit(
        req,
        res,
        actor,
        { section: 'upstreams', at: { project: slug } },
        async () => {
          const form = formOf(req, UPSTREAM_FORMS.add);
          const [header, value] = [form.credential_header.trim(), form.credential_value];
          const input = {
            name: form.name.trim(),
            url: form.url.trim(),
            timeoutMs: Number(form.timeout) * 1000,
            // Both empty: no credential; one alone is the service's refusal, naming `credential`.
            ...(header || value ? { credential: { header, value } } : {}),
          };
          const added = await steppingUpTo(upstreamsPath(slug), () => m.addUpstream(actor, slug, input));
          back(res, upstreamPath(slug, added.upstream.name), 'upstream-added');
        },
        async (f, err) => {
          const servers = await m.listUpstreams(actor, slug);
          return upstreamsPage(f, { servers, now: now(), issuer, sent: { ...sent, error: { message: err.message, field: err.field } } });
        },
      );
    }),
  );
  router.get(
    '/projects/:slug/upstreams/:name',
    page$(async (req, res, actor) => {
      const slug = param(req, 'slug');
      const view = await m.getUpstream(actor, slug, param(req, 'name'));
      const f = await frame(req, res, actor, 'upstreams', { project: slug });
      render(res, upstreamPage(f, view, now(), issuer));
    }),
  );
  router.post(
    UPSTREAM_FORMS.refresh.path,
    page$(async (req, res, actor) => {
      const [slug, name] = [param(req, 'slug'), param(req, 'name')];
      formOf(req, UPSTREAM_FORMS.refresh);
      back(res, upstreamPath(slug, name), refreshed(await m.refreshUpstream(actor, slug, name)));
    }),
  );
  router.get('/projects/:slug/upstreams/:name/remove', page$(confirmRemoval));
  router.post(
    UPSTREAM_FORMS.remove.path,
    page$(async (req, res, actor) => {
      if (!confirmed(req, UPSTREAM_FORMS.remove)) return confirmRemoval(req, res, actor);
      const slug = param(req, 'slug');
      await m.removeUpstream(actor, slug, param(req, 'name'));
      back(res, upstreamsPath(slug), 'upstream-removed');
    }),
  );
}
