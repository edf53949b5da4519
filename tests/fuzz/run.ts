/**
 * `pnpm fuzz [--runs N] [--seed S]`: the fuzz suite's long run (docs/security.md "Fuzzing"):
 * N random requests (20,000 by default) to both services, a random seed unless given. Unlike the
 * CI test it does not stop at the first problem: it prints every distinct problem with one request
 * that shows it, the seed to replay, and exits 1 if there was any.
 */
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { describe, problemsOf, startFuzzStack } from './harness.ts';
import { anyRequest } from './requests.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20000' }, seed: { type: 'string' } } });
const runs = Number(values.runs);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);

const f = await startFuzzStack();
const found = new Map<string, { count: number; example: string }>();
const statuses = new Map<string, number>();
let slowest = 0;
const started = performance.now();
try {
  await fc.assert(
    fc.asyncProperty(anyRequest(f.seeds), async (req) => {
      let problems: string[];
      try {
        const answer = await f.send(req);
        slowest = Math.max(slowest, answer.ms);
        const bucket = `${req.service} ${Math.floor(answer.status / 100)}xx`;
        statuses.set(bucket, (statuses.get(bucket) ?? 0) + 1);
        problems = problemsOf(answer);
      } catch (err) {
        problems = [`no answer: ${(err as Error).message}`];
      }
      for (const p of problems) {
        // One entry per kind of problem and route (the path up to its second segment).
        const route = `${req.service} ${req.method} /${req.path.split(/[/?]/).slice(1, 3).join('/')}`;
        const key = `${route}: ${p.replace(/"[\s\S]*$/, '').slice(0, 120)}`;
        const seen = found.get(key) ?? { count: 0, example: `${p}\n    ${describe(req)}` };
        seen.count++;
        found.set(key, seen);
      }
    }),
    { numRuns: runs, seed },
  );
} finally {
  await f.close();
}
const seconds = (performance.now() - started) / 1000;
console.log(`fuzz: ${runs} requests in ${seconds.toFixed(1)} s, seed ${seed}, slowest answer ${Math.round(slowest)} ms`);
console.log(
  `answers: ${[...statuses]
    .sort()
    .map(([k, n]) => `${k} ${n}`)
    .join(', ')}`,
);
if (found.size === 0) console.log('no problems found');
for (const [key, { count, example }] of found) console.log(`\nPROBLEM (${count}x) ${key}\n  ${example}`);
process.exit(found.size ? 1 : 0);
