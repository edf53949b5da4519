/** Reading a key family in pages, on one Redis or on every primary of a Cluster. */
import { Cluster } from 'ioredis';
import type { Redis } from './redis.ts';

/** Keys asked for per SCAN call: no single command walks the whole keyspace. */
const SCAN_PAGE = 1_000;

/** The keys matching `match`, a page at a time (a key may come twice while Redis rehashes). */
export async function* scanKeys(redis: Redis, match: string): AsyncGenerator<string[]> {
  // connectRedis hands a Cluster out typed as a Redis (the stores use commands both offer).
  const client: unknown = redis;
  const nodes = client instanceof Cluster ? client.nodes('master') : [redis];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', match, 'COUNT', SCAN_PAGE);
      cursor = next;
      if (keys.length) yield keys;
    } while (cursor !== '0');
  }
}
