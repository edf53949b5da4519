/**
 * Project > API Keys routes (docs/dashboard.md): the list, its new keys' reveal and the create
 * form here, then a key's own pages and forms (key-routes.ts).
 */
import type { Request, Response, Router } from 'express';
import { ManagementError, type Actor } from '@svc/management';
import { render } from '../../ui/html.ts';
import { formOf } from '../form.ts';
import { field, param, str, type Kit } from '../kit.ts';
import { KEY_FORMS } from './forms.ts';
import { keyRoutes } from './key-routes.ts';
import { newKeyReveal } from './new-key-reveal.ts';
import { keysPage, newKeyPage, type KeysPage, type NewKeyPage } from './view.ts';
import type { PageRefusal } from '@svc/errors';

const query = (req: Request, name: string) => str(req.query[name]);

/** The keys section: the list, the reveal and the create form first (the reveal path before a key's own), then a key's pages. */
export function keysRoutes(router: Router, kit: Kit): void {
  const { deps, now, page$, frame, reveals } = kit;
  const reveal = newKeyReveal(reveals);

  async function renderKeys(
    req: Request,
    res: Response,
    actor: Actor,
    extra: Partial<KeysPage> = {},
    refusal?: PageRefusal,
  ): Promise<void> {
    const slug = param(req, 'slug');
    const f = await frame(req, res, actor, 'keys', { project: slug });
    // The list's filter (docs/dashboard.md "API keys"): a GET form, so a filtered view is a link.
    const filter = { status: query(req, 'status'), q: query(req, 'q') };
    const data = await deps.management.listKeys(actor, slug, filter);
    render(res, keysPage(f, { ...data, now: now(), filter, ...extra }), { refusal });
  }

  router.get(
    '/projects/:slug/keys',
    page$((req, res, actor) => renderKeys(req, res, actor)),
  );
  /** The create form's page, empty or again with what was typed and the refusal tied to its field. */
  async function renderNew(
    req: Request,
    res: Response,
    actor: Actor,
    extra: Omit<NewKeyPage, 'creatableLevels'> = {},
    refusal?: PageRefusal,
  ) {
    const slug = param(req, 'slug');
    const f = await frame(req, res, actor, 'keys', { project: slug });
    const { creatableLevels } = await deps.management.listKeys(actor, slug, { status: '', q: '' });
    render(res, newKeyPage(f, { creatableLevels, ...extra }), { refusal });
  }

  router.get(
    '/projects/:slug/keys/new',
    page$((req, res, actor) => renderNew(req, res, actor)),
  );
  router.get(
    '/projects/:slug/keys/reveal/:id',
    page$(async (req, res, actor) => {
      const created = await reveal.take(req);
      await renderKeys(req, res, actor, created ? { created } : { gone: true });
    }),
  );
  router.post(
    KEY_FORMS.create.path,
    page$(async (req, res, actor) => {
      // What was typed, shown again on the form when it is refused.
      const values = {
        name: field(req, 'name'),
        level: field(req, 'level'),
        expires: field(req, 'expires'),
        rateLimit: field(req, 'rateLimit'),
      };
      try {
        const form = formOf(req, KEY_FORMS.create);
        const input = {
          ...form,
          name: form.name.trim(),
          rateLimit: typeof form.rateLimit === 'string' ? form.rateLimit.trim() : form.rateLimit,
        };
        await reveal.show(req, res, await deps.management.createKey(actor, param(req, 'slug'), input));
      } catch (err) {
        if (!(err instanceof ManagementError) || err.status !== 400) throw err;
        const at = err.field === 'level' || err.field === 'expires' || err.field === 'rateLimit' ? err.field : 'name';
        await renderNew(req, res, actor, { error: { field: at, message: err.message }, values }, 'invalid_form');
      }
    }),
  );

  keyRoutes(router, kit, reveal);
}
