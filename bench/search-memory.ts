/**
 * Memory and event-loop cost of the search index (docs/knowledge-tools.md "Index memory"). For each
 * shape of generated Markdown (many tiny sections, medium ones, few big ones) it uploads about
 * `MB` megabytes of text into a project, then measures the heap used before and after the first
 * search builds the replica's index, and the longest event-loop turn meanwhile
 * (perf_hooks.monitorEventLoopDelay). Run: `./scripts/node --expose-gc bench/search-memory.ts [MB]`.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createKnowledge, LIMITS, uploadDocument } from '../packages/knowledge/src/index.ts';

const VOCAB = (
  'token key secret rotation quota plan limit request response header client server device code user grant scope ' +
  'refresh access session cache replica cluster shard latency throughput queue worker retry backoff timeout error ' +
  'policy role admin viewer editor project workspace team bot account email password hash pepper signature audit'
).split(' ');

/** Mulberry32: a small seeded PRNG so every run generates the same corpus. */
export function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A document of `chars` characters in sections of about `sectionChars`, words from VOCAB plus numbered rare words. */
export function generatedDocument(rand: () => number, chars: number, sectionChars: number): string {
  const word = () => (rand() < 0.2 ? `w${Math.floor(rand() * 50_000)}` : (VOCAB[Math.floor(rand() * VOCAB.length)] as string));
  const out: string[] = [];
  let len = 0;
  while (len < chars) {
    let s = `# ${word()} ${word()}\n\n`;
    while (s.length < sectionChars) s += `${word()} `;
    out.push(s.trimEnd());
    len += s.length + 2;
  }
  return out.join('\n\n').slice(0, chars);
}

/**
 * Heap in use, JS objects and ArrayBuffer backing stores, after full collections: V8 frees the
 * backing stores of dead typed arrays after the collection that found them dead, so this collects
 * and yields until two readings agree.
 */
export async function settledHeapBytes(gc: () => void): Promise<number> {
  let last = Number.NaN;
  for (let i = 0; i < 10; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
    const m = process.memoryUsage();
    const now = m.heapUsed + m.arrayBuffers;
    if (Math.abs(now - last) < 64 * 1024) return now;
    last = now;
  }
  return last;
}

const SHAPES = [
  { name: 'tiny sections (~100 chars)', sectionChars: 100 },
  { name: 'medium sections (~800 chars)', sectionChars: 800 },
  { name: 'big sections (~2,900 chars)', sectionChars: 2900 },
];

if (import.meta.main) {
  const { startRedis } = await import('@svc/testkit');
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const mb = Number(process.argv[2] ?? 1);
  const redis = await startRedis();
  for (const shape of SHAPES) {
    if ((mb * 1_000_000) / shape.sectionChars > LIMITS.sectionsPerProject) {
      console.log(`${shape.name}: skipped, ${mb} MB would pass the ${LIMITS.sectionsPerProject} sections a project may hold`);
      continue;
    }
    await redis.flush();
    const rand = prng(7);
    const writer = createKnowledge(redis.client);
    let chars = 0;
    // 1 MB per 5 documents of 200,000 characters, the largest allowed.
    for (let d = 0; chars < mb * 1_000_000; d++) {
      const content = generatedDocument(rand, Math.min(200_000, mb * 1_000_000 - chars), shape.sectionChars);
      await uploadDocument(redis.client, writer.embedder, 'mem', { name: `doc-${d}.md`, content });
      chars += content.length;
    }
    const reader = createKnowledge(redis.client);
    const before = await settledHeapBytes(gc);
    const h = monitorEventLoopDelay({ resolution: 1 });
    h.enable();
    const t = performance.now();
    const sections = await reader.search.size('mem');
    const took = performance.now() - t;
    // The histogram records a late turn when its timer next fires: let it fire before reading.
    await new Promise((r) => setTimeout(r, 20));
    h.disable();
    const bytes = (await settledHeapBytes(gc)) - before;
    console.log(
      `${shape.name}: ${(chars / 1e6).toFixed(2)} MB text, ${sections} sections, index ${(bytes / 1e6).toFixed(1)} MB = ` +
        `${(bytes / chars).toFixed(1)} bytes/char (approximateBytes ${(reader.search.cachedBytes() / chars).toFixed(1)}); load ${took.toFixed(0)} ms, longest turn ${(h.max / 1e6).toFixed(1)} ms`,
    );
  }
  await redis.stop();
}
