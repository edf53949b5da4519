/**
 * A new key, shown once (docs/dashboard.md "A key is shown once"): the form that made it (a
 * creation or a roll) seals it for one read by this session and redirects (post-redirect-get); the
 * reveal page takes it, in the project it was made in only.
 */
import type { Request, Response } from 'express';
import type { NewKey } from '@svc/management';
import { keysPath, param, type Kit } from '../kit.ts';

/** What a key's reveal holds: the new key and the project it was made in (its page shows it there only). */
interface Revealed {
  project: string;
  created: NewKey;
}

/** Seals a new key for its reveal page, and takes it there. */
export function newKeyReveal(reveals: Kit['reveals']) {
  return {
    /** Seals `created` for one read and redirects to the project's reveal page. */
    async show(req: Request, res: Response, created: NewKey): Promise<void> {
      const slug = param(req, 'slug');
      const id = await reveals.put(req, { project: slug, created } satisfies Revealed);
      res.redirect(303, `${keysPath(slug)}/reveal/${id}`);
    },

    /** The key this reveal page was sealed for; undefined once read, or in another project. */
    async take(req: Request): Promise<NewKey | undefined> {
      // Sealed by show() above and authenticated (AES-GCM), so its shape is the one written there.
      const taken = (await reveals.take(req, param(req, 'id'))) as Revealed | null;
      return taken?.project === param(req, 'slug') ? taken.created : undefined;
    },
  };
}
