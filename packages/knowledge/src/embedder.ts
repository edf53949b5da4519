/**
 * Embedders turn texts into vectors for semantic search. Two implementations behind one interface:
 * - the built-in local embedder: no network, no model. A hashed bag of features (word stems, word
 *   bigrams, character trigrams of each word) folded into a fixed-dimension vector with log-scaled
 *   term frequency and per-feature-kind weights, L2-normalised. It is lexical: it matches shared
 *   words, word forms and spelling fragments, not meaning; "car" and "automobile" stay unrelated.
 * - an OpenAI-compatible embeddings endpoint (POST {url} with {model, input}), when configured.
 */
import { createHash } from 'node:crypto';
import { stem, words, isStopword } from './text.ts';

export interface Embedder {
  /** Stored with each vector: vectors of different embedders are never compared. */
  readonly id: string;
  /** Similarity below which a section is noise, not a match (hash collisions for the local embedder). */
  readonly minSimilarity: number;
  embed(texts: string[]): Promise<Float32Array[]>;
  /**
   * Optional: embeds a query with each word weighted by `idf` (inverse document frequency of its
   * stem in the project's sections), so rare words count more than common ones (TF-IDF-like).
   */
  embedQuery?(text: string, idf: (stem: string) => number): Float32Array;
}

export interface EmbedderOptions {
  /** OpenAI-compatible embeddings URL (e.g. https://api.openai.com/v1/embeddings); absent: local. */
  url?: string;
  apiKey?: string | null;
  model?: string;
  /** Local embedder dimension (default 512). */
  dimensions?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** The embedder the options ask for: remote when `url` is set, else the built-in local one. */
export function createEmbedder(options: EmbedderOptions = {}): Embedder {
  return options.url ? remoteEmbedder(options as EmbedderOptions & { url: string }) : localEmbedder(options.dimensions);
}

// Word stems carry the meaning; bigrams reward phrases; trigrams catch word forms the stemmer misses.
const WEIGHT = { word: 1, bigram: 0.5, trigram: 0.25 } as const;

export function localEmbedder(dimensions = 512): Embedder {
  return {
    id: `local-hash-v1-${dimensions}`,
    minSimilarity: 0.05,
    async embed(texts) {
      return texts.map((t) => embedLocal(t, dimensions));
    },
    embedQuery(text, idf) {
      return embedLocal(text, dimensions, idf);
    },
  };
}

function embedLocal(text: string, dim: number, idf?: (stem: string) => number): Float32Array {
  const counts = new Map<string, number>();
  const weights = new Map<string, number>();
  let w0 = 1;
  const add = (f: string) => {
    counts.set(f, (counts.get(f) ?? 0) + 1);
    weights.set(f, Math.max(weights.get(f) ?? 0, w0));
  };
  const ws = words(text).filter((w) => !isStopword(w));
  let prev: string | null = null;
  for (const w of ws) {
    const s = stem(w);
    w0 = idf ? idf(s) : 1;
    add(`w:${s}`);
    if (prev) add(`b:${prev}_${s}`);
    prev = s;
    const padded = `^${w}$`;
    for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`);
  }
  const v = new Float32Array(dim);
  for (const [f, n] of counts) {
    const h = hash32(f);
    const kind = f[0] === 'w' ? WEIGHT.word : f[0] === 'b' ? WEIGHT.bigram : WEIGHT.trigram;
    // Sign hashing: collisions cancel out on average instead of piling up.
    v[h % dim] = (v[h % dim] ?? 0) + ((h & 0x80000000) !== 0 ? -1 : 1) * kind * (1 + Math.log(n)) * (weights.get(f) ?? 1);
  }
  return normalise(v);
}

/** FNV-1a, 32 bits: fast and stable across processes and releases (stored vectors depend on it). */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function normalise(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const n = Math.sqrt(sum);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) / n;
  return v;
}

function remoteEmbedder(o: EmbedderOptions & { url: string }): Embedder {
  const model = o.model ?? 'text-embedding-3-small';
  const doFetch = o.fetch ?? fetch;
  const fingerprint = createHash('sha256').update(`${o.url}|${model}`).digest('hex').slice(0, 12);
  return {
    id: `remote-${fingerprint}`,
    minSimilarity: 0,
    async embed(texts) {
      if (texts.length === 0) return [];
      const out: Float32Array[] = [];
      // Batches keep each request well under the providers' input limits.
      for (let i = 0; i < texts.length; i += 64) {
        let body: { data?: { embedding?: number[]; index?: number }[] };
        try {
          const res = await doFetch(o.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}) },
            body: JSON.stringify({ model, input: texts.slice(i, i + 64) }),
            signal: AbortSignal.timeout(o.timeoutMs ?? 15_000),
          });
          if (!res.ok) throw new EmbedderError(`embeddings endpoint answered HTTP ${res.status}`);
          body = (await res.json()) as typeof body;
        } catch (err) {
          if (err instanceof EmbedderError) throw err;
          throw new EmbedderError(`embeddings endpoint unreachable: ${err instanceof Error ? err.name : 'error'}`);
        }
        const data = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
        if (data.length !== Math.min(64, texts.length - i))
          throw new EmbedderError('embeddings endpoint returned a different number of vectors');
        for (const d of data) out.push(normalise(Float32Array.from(d.embedding ?? [])));
      }
      return out;
    },
  };
}

/** The embeddings service failed; the message never holds the API key. */
export class EmbedderError extends Error {
  override name = 'EmbedderError';
}
