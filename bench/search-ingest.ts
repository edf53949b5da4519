/**
 * Ingestion through the gateway for `pnpm bench:search`: svc_upload_document calls, a few in
 * flight, while another load (another tenant's requests) runs until the last upload has answered.
 */
import autocannon from 'autocannon';
import { LIMITS } from '../packages/knowledge/src/index.ts';
import { prng } from './search-memory.ts';
import { scaleDocument } from './search-scale-corpus.ts';

/** Documents uploaded: 40 of about 200,000 characters, just under a project's 10,000 sections. */
const INGEST_DOCUMENTS = 40;
/** Sections per document (about 800 characters each; 40 x 240 = 9,600 sections). */
const INGEST_SECTIONS = 240;
/** Uploads in flight. */
const INGEST_CONCURRENCY = 4;

/** The documents, each cut to the largest a document may be (LIMITS.documentChars). */
export function ingestionDocuments(): string[] {
  const rand = prng(1000);
  return Array.from({ length: INGEST_DOCUMENTS }, (_, d) => scaleDocument(rand, d, INGEST_SECTIONS, [8, 6]).slice(0, LIMITS.documentChars));
}

/** An autocannon run stopped on demand; `stop()` resolves with its result. */
function startLoad(options: autocannon.Options): { stop(): Promise<autocannon.Result> } {
  let instance: autocannon.Instance | undefined;
  const result = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(options, (err: unknown, r: autocannon.Result) => (err ? reject(err as Error) : resolve(r)));
  });
  return {
    stop() {
      instance?.stop();
      return result;
    },
  };
}

export interface Ingestion {
  chars: number;
  sections: number;
  seconds: number;
  failed: number;
  /** The last failed upload's status and answer, cut short. */
  lastFailure: string;
  /** The other load, over the ingestion's whole time. */
  other: autocannon.Result;
}

export async function runIngestion(o: {
  base: string;
  project: string;
  apiKey: string;
  docs: string[];
  /** The other load (its duration is ignored: it runs until the ingestion ends). */
  other: autocannon.Options;
}): Promise<Ingestion> {
  const load = startLoad({ ...o.other, duration: 3600 });
  let next = 0;
  let chars = 0;
  let sections = 0;
  let failed = 0;
  let lastFailure = '';
  const t = performance.now();
  const worker = async () => {
    for (let d = next++; d < o.docs.length; d = next++) {
      const content = o.docs[d] as string;
      const res = await fetch(`${o.base}/mcp/${o.project}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': o.apiKey },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: d,
          method: 'tools/call',
          params: { name: 'svc_upload_document', arguments: { name: `ingest-${d}.md`, content } },
        }),
      });
      const text = await res.text();
      const body = JSON.parse(text) as { result?: { isError?: boolean; structuredContent?: { sections?: number } } };
      if (res.status !== 200 || !body.result || body.result.isError) {
        failed++;
        lastFailure = `${res.status} ${text.slice(0, 200)}`;
        continue;
      }
      chars += content.length;
      sections += body.result.structuredContent?.sections ?? 0;
    }
  };
  await Promise.all(Array.from({ length: INGEST_CONCURRENCY }, worker));
  const seconds = (performance.now() - t) / 1000;
  return { chars, sections, seconds, failed, lastFailure, other: await load.stop() };
}
