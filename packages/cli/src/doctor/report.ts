/**
 * What `svc doctor` prints (docs/cli.md "svc doctor"): the steps seen, then one line per client
 * family, "would sign in" or "would stop at X: why", with the remedy under it; a newcomer reads
 * from the top and finds the first ✗. `--json` prints the same as data.
 */
import type { Line } from '../run.ts';
import type { Segment } from '../style.ts';
import type { Finding, Mark } from './findings.ts';
import type { Verdict } from './verdicts.ts';

const MARKS: Record<Mark, Segment> = {
  ok: { text: '✓', style: 'green' },
  bad: { text: '✗', style: 'red' },
  info: { text: '·', style: 'dim' },
};

export interface DoctorReport {
  target: string;
  browser_origin: string;
  steps: Finding[];
  families: Verdict[];
  /** How many of the families shown would sign in. */
  would_sign_in: number;
}

function stepLines(f: Finding): Line[] {
  return [
    [{ text: '  ' }, MARKS[f.mark], { text: ` ${f.what}` }, { text: f.url ? `  ${f.url}` : '', style: 'dim' }],
    [{ text: `      ${f.seen}` }],
  ];
}

function verdictLines(v: Verdict, width: number): Line[] {
  const name = v.name.padEnd(width);
  if (v.ok)
    return [
      [
        { text: '  ' },
        MARKS.ok,
        { text: ` ${name}  ` },
        { text: v.setup ? 'would sign in once you' : 'would sign in', style: 'green' },
        { text: v.setup ? ` ${v.setup}` : '' },
      ],
      [{ text: `      via ${v.path.join(' → ')}`, style: 'dim' }],
    ];
  return [
    [{ text: '  ' }, MARKS.bad, { text: ` ${name}  ` }, { text: `would stop at ${v.stoppedAt}`, style: 'red' }, { text: `: ${v.reason}` }],
    ...(v.path.length ? [[{ text: `      after ${v.path.join(' → ')}`, style: 'dim' as const }]] : []),
    [{ text: '      remedy: ', style: 'bold' }, { text: v.remedy ?? '' }],
  ];
}

/** The human lines of a report. */
export function reportLines(r: DoctorReport): Line[] {
  const width = Math.max(...r.families.map((v) => v.name.length));
  return [
    [
      { text: `MCP discovery of ${r.target}`, style: 'bold' },
      { text: ` (browser clients as ${r.browser_origin})`, style: 'dim' },
    ],
    '',
    ...r.steps.flatMap(stepLines),
    '',
    [{ text: 'What each client family would do', style: 'bold' }],
    ...r.families.flatMap((v) => verdictLines(v, width)),
    '',
    `${r.would_sign_in} of ${r.families.length} client families would sign in.`,
  ];
}
