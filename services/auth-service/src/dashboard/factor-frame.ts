/**
 * The second-factor pages of a signed-in person (factors/: their list, setting one up, recovery
 * codes, step-up) in the dashboard's frame, under You > Second factors, so they read as a part of
 * the dashboard rather than a detour (docs/dashboard.md "Second factors"). mount-pages.ts hands
 * this to the factor routes, which stand on the floor below and cannot import it.
 */
import { randomUUID } from 'node:crypto';
import type { Actor } from '@svc/management';
import type { AccountFrame } from '../factors/page-kit.ts';
import { dashboardPage, FRAMED_FACTOR_CSP } from './frame.ts';
import { dashboardKit, type DashboardDeps } from './kit.ts';

export function factorFrame(deps: DashboardDeps): AccountFrame {
  const { frame } = dashboardKit(deps);
  return async (req, res, user, title, body) => {
    // The frame's copy script by its hash and the passkey script from our origin; never cached.
    res.set({ 'Content-Security-Policy': FRAMED_FACTOR_CSP, 'Cache-Control': 'no-store' });
    const actor: Actor = { kind: 'person', userId: user.id, label: user.email, source: req.ip ?? '', requestId: randomUUID() };
    return dashboardPage(await frame(req, res, actor, 'factors', {}), title, body);
  };
}
