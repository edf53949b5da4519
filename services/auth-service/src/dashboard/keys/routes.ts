/** Project > API Keys routes (docs/dashboard.md): the list and create form, then a key's own pages and forms. */
import type { Request, Response, Router } from 'express';
import { ManagementError, type Actor, type NewKey } from '@svc/management';
import { requireRecentFactor } from '../../factors/step-up.ts';
import { render } from '../../pages/html.ts';
import { back, field, keysPath, param, type Kit } from '../kit.ts';
import { keyLimitPage, keysPage, revokeKeyPage, rollKeyPage, type KeysPage } from './view.ts';

/** What a key's reveal holds: the new key and the project it was made in (its page shows it there only). */
interface Revealed {
  project: string;
  created: NewKey;
}

export function keysRoutes(router: Router, { deps, now, page$, frame, submit, reveals }: Kit): void {
  async function renderKeys(req: Request, res: Response, actor: Actor, extra: Partial<KeysPage> = {}, status = 200): Promise<void> {
    const slug = param(req, 'slug');
    const f = await frame(req, res, actor, 'keys', { project: slug });
    const data = await deps.management.keys(actor, slug);
    render(res, keysPage(f, { ...data, now: now(), ...extra }), { status });
  }

  async function keyOf(actor: Actor, slug: string, id: string) {
    const key = (await deps.management.keys(actor, slug)).keys.find((k) => k.id === id);
    if (!key) throw new ManagementError(404, 'There is no such key in this project.');
    return key;
  }

  /** Post-redirect-get (docs/dashboard.md "A key is shown once"): the key waits for one read by this session. */
  async function reveal(req: Request, res: Response, created: NewKey): Promise<void> {
    const slug = param(req, 'slug');
    const id = await reveals.put(req, { project: slug, created } satisfies Revealed);
    res.redirect(303, `${keysPath(slug)}/reveal/${id}`);
  }

  router.get(
    '/projects/:slug/keys',
    page$((req, res, actor) => renderKeys(req, res, actor)),
  );
  router.get(
    '/projects/:slug/keys/reveal/:id',
    page$(async (req, res, actor) => {
      // Sealed by reveal() above and authenticated (AES-GCM), so its shape is the one written there.
      const taken = (await reveals.take(req, param(req, 'id'))) as Revealed | null;
      const created = taken?.project === param(req, 'slug') ? taken.created : undefined;
      await renderKeys(req, res, actor, created ? { created } : { gone: true });
    }),
  );
  router.post(
    '/projects/:slug/keys',
    // An ADMIN key needs a second factor used within minutes (docs/auth-service.md "Step-up").
    requireRecentFactor(
      { redis: deps.redis, accounts: deps.accounts, userOf: (req) => deps.web.userOf(req) },
      { applies: (req) => field(req, 'level') === 'ADMIN', backTo: (req) => req.originalUrl },
    ),
    page$(async (req, res, actor) => {
      const values = {
        name: field(req, 'name').trim(),
        level: field(req, 'level'),
        expires: field(req, 'expires'),
        rateLimit: field(req, 'rateLimit').trim(),
      };
      try {
        await reveal(req, res, await deps.management.createKey(actor, param(req, 'slug'), values));
      } catch (err) {
        if (!(err instanceof ManagementError) || err.status !== 400) throw err;
        const at = err.field === 'level' || err.field === 'expires' || err.field === 'rateLimit' ? err.field : 'name';
        await renderKeys(req, res, actor, { error: { field: at, message: err.message }, values }, 400);
      }
    }),
  );

  // A key's own pages (confirm a revocation, choose a roll's overlap, set its limit), then their forms.
  for (const [action, view] of [
    ['revoke', revokeKeyPage],
    ['roll', rollKeyPage],
    ['limit', keyLimitPage],
  ] as const) {
    router.get(
      `/projects/:slug/keys/:id/${action}`,
      page$(async (req, res, actor) => {
        const f = await frame(req, res, actor, 'keys', { project: param(req, 'slug') });
        render(res, view(f, await keyOf(actor, param(req, 'slug'), param(req, 'id'))));
      }),
    );
  }
  router.post(
    '/projects/:slug/keys/:id/revoke',
    page$(async (req, res, actor) => {
      const key = await keyOf(actor, param(req, 'slug'), param(req, 'id'));
      await deps.management.revokeKey(actor, param(req, 'slug'), key.id);
      back(res, keysPath(param(req, 'slug')), 'key-revoked');
    }),
  );
  router.post(
    '/projects/:slug/keys/:id/limit',
    page$(async (req, res, actor) => {
      const slug = param(req, 'slug');
      const value = field(req, 'rateLimit').trim();
      await submit(
        req,
        res,
        actor,
        { section: 'keys', at: { project: slug } },
        async () => {
          await deps.management.setKeyLimit(actor, slug, param(req, 'id'), value);
          back(res, keysPath(slug), 'key-limit-changed');
        },
        async (f, err) => keyLimitPage(f, await keyOf(actor, slug, param(req, 'id')), err.message, value),
      );
    }),
  );
  router.post(
    '/projects/:slug/keys/:id/roll',
    page$(async (req, res, actor) => {
      await reveal(req, res, await deps.management.rollKey(actor, param(req, 'slug'), param(req, 'id'), field(req, 'overlap')));
    }),
  );
}
