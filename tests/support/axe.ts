/**
 * Accessibility checks in the browser tests: axe-core (Deque's engine, the one browser tools use)
 * run inside the page as it is, with the WCAG 2.1 A and AA rules. A page passes when axe reports
 * no violation; a failure lists each rule with the elements it found.
 */
import axe from 'axe-core';
import type { Page } from 'playwright-core';

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
  const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice', ...(opts.wcag22 ? ['wcag22aa'] : [])];
  // Added as a script element's text by the test harness, not by the page: the dashboard's
  // Content-Security-Policy allows only its own script, so the page itself could not load axe.
  await page.evaluate(axe.source);
  const violations = (await page.evaluate(async (values) => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: unknown[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values } });
    return r.violations;
  }, tags)) as Violation[];
  return violations.map(
    (v) =>
      `${v.id} (${v.impact ?? 'n/a'}): ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(' ')}: ${n.failureSummary ?? ''}`).join('\n')}`,
  );
}
