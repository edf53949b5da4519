/**
 * A key's own pages in Project > API Keys (docs/dashboard.md "API keys"): confirm a revocation or
 * a disabling, choose a roll's overlap, set its limit, note and allow-list; then their forms.
 */
import type { Router } from 'express';
import { ManagementError, type Actor, type KeyRow } from '@svc/management';
import { render } from '../../ui/html.ts';
import { formOf } from '../form.ts';
import type { Frame } from '../frame.ts';
import { back, confirmed, field, keysPath, param, type Kit } from '../kit.ts';
import { keyIpsPage, keyNotePage, keyStatusPage } from './controls-view.ts';
import { KEY_FORMS } from './forms.ts';
import type { newKeyReveal } from './new-key-reveal.ts';
import { keyLimitPage, revokeKeyPage, rollKeyPage } from './view.ts';

/** The pages and forms of one key; a roll's new key goes to `reveal`. */
export function keyRoutes(router: Router, { deps, page$, frame, submit }: Kit, reveal: ReturnType<typeof newKeyReveal>): void {
  async function keyOf(actor: Actor, slug: string, id: string) {
    const key = (await deps.management.listKeys(actor, slug, { status: 'all' })).keys.find((k) => k.id === id);
    if (!key) throw new ManagementError(404, 'There is no such key in this project.');
    return key;
  }

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
        await (disabled ? deps.management.disableKey(actor, slug, key.id) : deps.management.enableKey(actor, slug, key.id));
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
          await deps.management.setKeyNote(actor, slug, param(req, 'id'), { note: formOf(req, KEY_FORMS.note).note });
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
      await reveal.show(req, res, await deps.management.rollKey(actor, param(req, 'slug'), param(req, 'id'), form.overlap));
    }),
  );
}
