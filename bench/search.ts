/**
 * svc_search on a 1,000-section corpus. benchSearchCorpus(redis) seeds a project with 50 Markdown
 * documents of 20 sections each (deterministic pseudo-random prose over a technical vocabulary,
 * uploaded through the same code svc_upload_document uses) and returns the project and a request
 * body for `pnpm bench`. Run directly (`./scripts/node bench/search.ts`), it prints in-process
 * search latencies per mode, without HTTP.
 */
// Relative import: bench/ resolves packages from the root, which does not list @svc/knowledge.
import { createKnowledge, uploadDocument } from '../packages/knowledge/src/index.ts';
import type { Redis } from '@svc/accounts';
import { prng } from './search-memory.ts';

const VOCAB = (
  'token key secret rotation quota plan limit request response header client server device code user grant scope ' +
  'refresh access session cache replica cluster shard latency throughput queue worker retry backoff timeout error ' +
  'policy role admin viewer editor project workspace team bot account email password hash pepper signature audit ' +
  'deploy release rollback migration schema index search vector embedding document section heading memory swarm lease'
).split(' ');

export interface SearchCorpus {
  project: string;
  sections: number;
  /** A tools/call arguments object for svc_search (hybrid over the corpus). */
  args: { query: string; mode: 'keyword' | 'semantic' | 'hybrid'; limit: number };
}

export async function benchSearchCorpus(redis: Redis, project = 'bench-search'): Promise<SearchCorpus> {
  const rand = prng(42);
  const word = () => VOCAB[Math.floor(rand() * VOCAB.length)] as string;
  const sentence = () => {
    const n = 8 + Math.floor(rand() * 10);
    const s = Array.from({ length: n }, word).join(' ');
    return `${s[0]?.toUpperCase()}${s.slice(1)}.`;
  };
  const knowledge = createKnowledge(redis);
  let sections = 0;
  for (let d = 0; d < 50; d++) {
    const parts: string[] = [];
    for (let s = 0; s < 20; s++)
      parts.push(`# ${word()} ${word()} ${d}.${s}\n\n${Array.from({ length: 6 + Math.floor(rand() * 8) }, sentence).join(' ')}`);
    const r = await uploadDocument(redis, knowledge.embedder, project, { name: `doc-${d}.md`, content: parts.join('\n\n') });
    sections += r.headings.length;
  }
  return { project, sections, args: { query: 'how do I rotate a refresh token after a session expires', mode: 'hybrid', limit: 5 } };
}

if (import.meta.main) {
  const { startRedis } = await import('@svc/testkit');
  const redis = await startRedis();
  const corpus = await benchSearchCorpus(redis.client);
  const knowledge = createKnowledge(redis.client);
  console.log(`corpus: ${corpus.sections} sections`);
  let t = performance.now();
  await knowledge.search.search(corpus.project, corpus.args.query, 'keyword', 5);
  console.log(`first search (index load): ${(performance.now() - t).toFixed(1)} ms`);
  for (const mode of ['keyword', 'semantic', 'hybrid'] as const) {
    const n = 500;
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      t = performance.now();
      await knowledge.search.search(corpus.project, corpus.args.query, mode, 5);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    console.log(`${mode.padEnd(8)} p50 ${times[n / 2]?.toFixed(2)} ms  p99 ${times[Math.floor(n * 0.99)]?.toFixed(2)} ms`);
  }
  await redis.stop();
}
