/** Project > API Keys routes (docs/dashboard.md): the list and create form, then a key's own pages and forms. */
import type { Request, Response, Router } from 'express';
import { ManagementError, type Actor, type KeyRow, type NewKey } from '@svc/management';
import { render } from '../../pages/html.ts';
import { formOf } from '../form.ts';
import type { Frame } from '../frame.ts';
import { back, confirmed, field, keysPath, param, str, type Kit } from '../kit.ts';
import { keyIpsPage, keyNotePage, keyStatusPage } from './controls-view.ts';
import { KEY_FORMS } from './forms.ts';
import { keyLimitPage, keysPage, revokeKeyPage, rollKeyPage, type KeysPage } from './view.ts';

/** What a key's reveal holds: the new key and the project it was made in (its page shows it there only). */
interface Revealed {
  project: string;
  created: NewKey;
}

const query = (req: Request, name: string) => str(req.query[name]);

export function keysRoutes(router: Router, { deps, now, page$, frame, submit, reveals }: Kit): void {
  async function renderKeys(req: Request, res: Response, actor: Actor, extra: Partial<KeysPage> = {}, status = 200): Promise<void> {
    const slug = param(req, 'slug');
    const f = await frame(req, res, actor, 'keys', { project: slug });
    // The list's filter (docs/dashboard.md "API keys"): a GET form, so a filtered view is a link.
    const filter = { status: query(req, 'status'), q: query(req, 'q') };
    const data = await deps.management.keys(actor, slug, filter);
    render(res, keysPage(f, { ...data, now: now(), filter, ...extra }), { status });
  }

  async function keyOf(actor: Actor, slug: string, id: string) {
    const key = (await deps.management.keys(actor, slug, { status: 'all' })).keys.find((k) => k.id === id);
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
        await reveal(req, res, await deps.management.createKey(actor, param(req, 'slug'), input));
      } catch (err) {
        if (!(err instanceof ManagementError) || err.status !== 400) throw err;
        const at = err.field === 'level' || err.field === 'expires' || err.field === 'rateLimit' ? err.field : 'name';
        await renderKeys(req, res, actor, { error: { field: at, message: err.message }, values }, 400);
      }
    }),
  );

  // A key's own pages (confirm a revocation or a disabling, choose a roll's overlap, set its limit,
  // note and allow-list), then their forms.
  for (const [action, view] of [
    ['revoke', revokeKeyPage],
    ['roll', rollKeyPage],
    ['limit', keyLimitPage],
    ['disable', (f: Frame, k: KeyRow) => keyStatusPage(f, k, true)],
    ['enable', (f: Frame, k: KeyRow) => keyStatusPage(f, k, false)],
    ['note', keyNotePage],
    ['ips', keyIpsPage],
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
    KEY_FORMS.revoke.path,
    page$(async (req, res, actor) => {
      const key = await keyOf(actor, param(req, 'slug'), param(req, 'id'));
      await deps.management.revokeKey(actor, param(req, 'slug'), key.id);
      back(res, keysPath(param(req, 'slug')), 'key-revoked');
    }),
  );
  router.post(
    KEY_FORMS.limit.path,
    page$(async (req, res, actor) => {
      const slug = param(req, 'slug');
      const value = field(req, 'rateLimit').trim();
      await submit(
        req,
        res,
        actor,
        { section: 'keys', at: { project: slug } },
        async () => {
          const rateLimit = formOf(req, KEY_FORMS.limit).rateLimit;
          await deps.management.setKeyLimit(actor, slug, param(req, 'id'), typeof rateLimit === 'string' ? rateLimit.trim() : rateLimit);
          back(res, keysPath(slug), 'key-limit-changed');
        },
        async (f, err) => keyLimitPage(f, await keyOf(actor, slug, param(req, 'id')), err.message, value),
      );
    }),
  );
  for (const [action, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    router.post(
      KEY_FORMS[action].path,
      page$(async (req, res, actor) => {
        const slug = param(req, 'slug');
        const key = await keyOf(actor, slug, param(req, 'id'));
        // docs/dashboard.md "Confirmation": only the confirming form acts.
        if (!confirmed(req, KEY_FORMS[action])) {
          const f = await frame(req, res, actor, 'keys', { project: slug });
          return render(res, keyStatusPage(f, key, disabled));
        }
        await deps.management.setKeyDisabled(actor, slug, key.id, disabled);
        back(res, keysPath(slug), disabled ? 'key-disabled' : 'key-enabled');
      }),
    );
  }
  router.post(
    KEY_FORMS.note.path,
    page$(async (req, res, actor) => {
      const slug = param(req, 'slug');
      const value = field(req, 'note');
      await submit(
        req,
        res,
        actor,
        { section: 'keys', at: { project: slug } },
        async () => {
          await deps.management.setKeyNote(actor, slug, param(req, 'id'), formOf(req, KEY_FORMS.note).note);
          back(res, keysPath(slug), 'key-note-saved');
        },
        async (f, err) => keyNotePage(f, await keyOf(actor, slug, param(req, 'id')), err.message, value),
      );
    }),
  );
  router.post(
    KEY_FORMS.ips.path,
    page$(async (req, res, actor) => {
      const slug = param(req, 'slug');
      const value = field(req, 'allowedIps');
      await submit(
        req,
        res,
        actor,
        { section: 'keys', at: { project: slug } },
        async () => {
          const entries = formOf(req, KEY_FORMS.ips).allowedIps.split(/[\s,]+/);
          await deps.management.setKeyAllowedIps(actor, slug, param(req, 'id'), entries);
          back(res, keysPath(slug), 'key-ips-saved');
        },
        async (f, err) => keyIpsPage(f, await keyOf(actor, slug, param(req, 'id')), err.message, value),
      );
    }),
  );
  router.post(
    KEY_FORMS.roll.path,
    page$(async (req, res, actor) => {
      const form = formOf(req, KEY_FORMS.roll);
      await reveal(req, res, await deps.management.rollKey(actor, param(req, 'slug'), param(req, 'id'), form.overlap));
    }),
  );
}
