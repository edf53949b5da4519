/**
 * Corpora of 10,000 and 100,000 sections for `pnpm bench:search` (bench/search-scale.ts).
 * Documents of SECTIONS_PER_DOCUMENT sections of deterministic pseudo-random prose (the vocabulary
 * of bench/search.ts plus numbered rare words), written by uploadDocument, the code
 * svc_upload_document runs, in parallel batches.
 *
 * No plan lets a project hold 100,000 sections: LIMITS.sectionsPerProject is 10,000 on every plan
 * (docs/knowledge-tools.md). The 100,000-section project is therefore built from ten projects of
 * 10,000 sections each, uploaded within the limit, whose stored documents and sections are then
 * copied into one project (the Redis layout of docs/redis-schema.md, "knowledge (project data)").
 * The index loads a project from what Redis holds and checks no limit, so it serves this project as
 * it would any other: no production code path exists for the bench.
 */
import { randomBytes } from 'node:crypto';
import { createKnowledge, kbKeys, uploadDocument } from '../packages/knowledge/src/index.ts';
import type { Redis } from '@svc/accounts';
import { prng } from './search-memory.ts';

const VOCAB = (
  'token key secret rotation quota plan limit request response header client server device code user grant scope ' +
  'refresh access session cache replica cluster shard latency throughput queue worker retry backoff timeout error ' +
  'policy role admin viewer editor project workspace team bot account email password hash pepper signature audit ' +
  'deploy release rollback migration schema index search vector embedding document section heading memory swarm lease'
).split(' ');
/** Sections per generated document: 100 documents make the 10,000 a project may hold. */
const SECTIONS_PER_DOCUMENT = 100;
/** Uploads in flight while seeding. */
const SEED_CONCURRENCY = 8;
/** Projects of 10,000 sections merged into the 100,000-section one. */
const SHARDS = 10;

/** The query every search row sends (the one of the 1,000-section row). */
export const SCALE_QUERY = 'how do I rotate a refresh token after a session expires';

/** A Markdown document of `sections` sections of two to five sentences (about 250 characters). */
export function scaleDocument(rand: () => number, d: number, sections = SECTIONS_PER_DOCUMENT, sentences = [2, 4]): string {
  const word = () => (rand() < 0.1 ? `w${Math.floor(rand() * 20_000)}` : (VOCAB[Math.floor(rand() * VOCAB.length)] as string));
  const sentence = () => {
    const s = Array.from({ length: 6 + Math.floor(rand() * 8) }, word).join(' ');
    return `${s[0]?.toUpperCase()}${s.slice(1)}.`;
  };
  const [min, spread] = sentences as [number, number];
  const parts: string[] = [];
  for (let s = 0; s < sections; s++)
    parts.push(`# ${word()} ${word()} ${d}.${s}\n\n${Array.from({ length: min + Math.floor(rand() * spread) }, sentence).join(' ')}`);
  return parts.join('\n\n');
}

/** Uploads `documents` generated documents into `project`; returns the characters stored. */
async function seedProject(redis: Redis, project: string, documents: number, seed: number, prefix = 'doc'): Promise<number> {
  const rand = prng(seed);
  const { embedder } = createKnowledge(redis);
  const contents = Array.from({ length: documents }, (_, d) => scaleDocument(rand, d));
  let chars = 0;
  let next = 0;
  const worker = async () => {
    for (let d = next++; d < documents; d = next++) {
      const content = contents[d] as string;
      await uploadDocument(redis, embedder, project, { name: `${prefix}-${d}.md`, content });
      chars += content.length;
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  return chars;
}

export interface ScaleCorpus {
  project: string;
  sections: number;
  chars: number;
  seedSeconds: number;
}

/** A project of 10,000 sections, uploaded as a tenant would (within every limit). */
export async function seed10k(redis: Redis, project: string): Promise<ScaleCorpus> {
  const t = performance.now();
  const chars = await seedProject(redis, project, 10_000 / SECTIONS_PER_DOCUMENT, 10);
  return { project, sections: await redis.hlen(kbKeys(project).sections), chars, seedSeconds: (performance.now() - t) / 1000 };
}

/** A project of 100,000 sections: ten projects of 10,000 merged (see the file's comment). */
export async function seed100k(redis: Redis, project: string): Promise<ScaleCorpus> {
  const t = performance.now();
  const to = kbKeys(project);
  let chars = 0;
  for (let shard = 0; shard < SHARDS; shard++) {
    const from = kbKeys(`${project}-shard-${shard}`);
    chars += await seedProject(redis, `${project}-shard-${shard}`, 10_000 / SECTIONS_PER_DOCUMENT, 100 + shard, `s${shard}`);
    await redis.hset(to.docs, await redis.hgetall(from.docs));
    let cursor = '0';
    do {
      const [next, flat] = await redis.hscan(from.sections, cursor, 'COUNT', 1000);
      cursor = next;
      if (flat.length) await redis.hset(to.sections, ...flat);
    } while (cursor !== '0');
    await redis.del(from.docs, from.sections, from.version, from.log, from.chars);
  }
  // A version of a new epoch, as after a flush: no replica holds an index of it.
  await redis.set(to.version, `${randomBytes(9).toString('base64url')}:1`);
  await redis.set(to.chars, chars);
  return { project, sections: await redis.hlen(to.sections), chars, seedSeconds: (performance.now() - t) / 1000 };
}
