/**
 * Accessibility checks in the browser tests: axe-core (Deque's engine, the one browser tools use)
 * run inside the page as it is, with the WCAG 2.1 A and AA rules. A page passes when axe reports
 * no violation; a failure lists each rule with the elements it found. Beside axe's rules, one of
 * ours: no control may sit past the viewport's right edge where nothing scrolls to it, and on a
 * phone-sized viewport (the dashboard's one-column layout, under 40rem) none at all, scrolling
 * region or not: a button pushed past a phone's edge by a long select is there for axe, and out of
 * sight for a person.
 */
import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { outsideLoopBudget } from '@svc/testkit';

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * axe-core's violations on the page as it is now, as readable lines (empty: none). With
 * `wcag22`, also WCAG 2.2 AA's rules: target-size (24 by 24 CSS pixels, or spaced as far).
 */
export async function axeViolations(page: Page, opts: { wcag22?: boolean } = {}): Promise<string[]> {
  // Half a megabyte of axe's source sent, and its findings read back: the test's own checking,
  // kept outside the loop budget (docs/conventions.md "Tests"); the page is still while axe runs.
  return outsideLoopBudget(() => runAxe(page, opts));
}

async function runAxe(page: Page, opts: { wcag22?: boolean }): Promise<string[]> {
  const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice', ...(opts.wcag22 ? ['wcag22aa'] : [])];
  // Added as a script element's text by the test harness, not by the page: the dashboard's
  // Content-Security-Policy allows only its own script, so the page itself could not load axe.
  await page.evaluate(axe.source);
  const violations = (await page.evaluate(async (values) => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: unknown[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values } });
    return r.violations;
  }, tags)) as Violation[];
  return [
    ...violations.map(
      (v) =>
        `${v.id} (${v.impact ?? 'n/a'}): ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(' ')}: ${n.failureSummary ?? ''}`).join('\n')}`,
    ),
    ...(await controlsPastTheEdge(page)),
  ];
}

/** Visible controls whose box ends past the viewport's right edge with no scrolling region around them. */
async function controlsPastTheEdge(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const phone = width < 640;
    const scrolls = (el: Element | null): boolean => {
      if (phone) return false;
      for (let e = el; e && e !== document.documentElement; e = e.parentElement) {
        const x = getComputedStyle(e).overflowX;
        if (x === 'auto' || x === 'scroll') return true;
      }
      return false;
    };
    const out: string[] = [];
    for (const el of document.querySelectorAll('button, select, input:not([type=hidden]), textarea, a[href]')) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      if (box.left < -1 && box.right <= 0) continue; // moved off-screen on purpose (a skip link until focused)
      if (box.right > width + 1 && !scrolls(el.parentElement))
        out.push(
          `control-past-edge: ${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 40)}" ends at ${Math.round(box.right)} px of ${width}`,
        );
    }
    return out;
  });
}
