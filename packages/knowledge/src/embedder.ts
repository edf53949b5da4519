/**
 * Embedders turn texts into vectors for semantic search. Two implementations behind one interface:
 * - the built-in local embedder: no network, no model. A hashed bag of features (word stems, word
 *   bigrams, character trigrams of each word) folded into a fixed-dimension vector with log-scaled
 *   term frequency and per-feature-kind weights, L2-normalised. It is lexical: it matches shared
 *   words, word forms and spelling fragments, not meaning; "car" and "automobile" stay unrelated.
 * - an OpenAI-compatible embeddings endpoint (POST {url} with {model, input}), when configured.
 */
import { createHash } from 'node:crypto';
import { HashCounts } from './hash-counts.ts';
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

/**
 * Texts embedded per call during an upload or an index load, with a yield to the event loop
 * between calls (docs/knowledge-tools.md "Event-loop budget"): at most `texts` texts and `chars`
 * characters, a longer text alone. Eight sections of 3,000 characters took 7-14 ms in one turn.
 */
const EMBED_BATCH = { texts: 8, chars: 8_000 } as const;

/** `texts` cut into the batches of EMBED_BATCH, as [start, end) index pairs. */
export function embeddingBatches(texts: readonly string[]): [number, number][] {
  const batches: [number, number][] = [];
  let start = 0;
  let chars = 0;
  texts.forEach((t, i) => {
    if (i > start && (i - start === EMBED_BATCH.texts || chars + t.length > EMBED_BATCH.chars)) {
      batches.push([start, i]);
      [start, chars] = [i, 0];
    }
    chars += t.length;
  });
  if (start < texts.length) batches.push([start, texts.length]);
  return batches;
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

/** Feature kinds, as HashCounts kinds; their weights by kind. */
const [WORD, BIGRAM, TRIGRAM] = [0, 1, 2] as const;
const KIND_WEIGHT = [WEIGHT.word, WEIGHT.bigram, WEIGHT.trigram] as const;

/**
 * The hashes of the feature strings `w:<stem>`, `b:<stem>_<stem>` and `t:<three characters of
 * ^word$>`, computed without building the strings: FNV-1a continued over each part. Features are
 * counted by hash, so two features of one text whose 32-bit hashes collide (about one text of
 * 3,000 characters in 5,000) count as one: the vector then differs in that one coordinate, whose
 * dimension the two already shared.
 */
const PREFIX = { word: hash32('w:'), bigram: hash32('b:'), trigram: hash32('t:') } as const;
const [CARET, DOLLAR, UNDERSCORE] = [0x5e, 0x24, 0x5f] as const;
/** One text's features at a time (embedLocal is synchronous). */
const features = new HashCounts();

function embedLocal(text: string, dim: number, idf?: (stem: string) => number): Float32Array {
  features.clear();
  let prev: string | null = null;
  for (const w of words(text)) {
    if (isStopword(w)) continue;
    const s = stem(w);
    const weight = idf ? idf(s) : 1;
    features.add(hash32(s, PREFIX.word), weight, WORD);
    if (prev !== null) features.add(hash32(s, fnvStep(hash32(prev, PREFIX.bigram), UNDERSCORE)), weight, BIGRAM);
    prev = s;
    // The trigrams of "^word$".
    const last = w.length + 1;
    for (let i = 0; i + 2 <= last; i++) {
      let h = PREFIX.trigram;
      for (let j = i; j < i + 3; j++) h = fnvStep(h, j === 0 ? CARET : j === last ? DOLLAR : w.charCodeAt(j - 1));
      features.add(h >>> 0, weight, TRIGRAM);
    }
  }
  const v = new Float32Array(dim);
  for (let i = 0; i < features.size; i++) {
    const h = features.key(i);
    // Sign hashing: collisions cancel out on average instead of piling up.
    v[h % dim] =
      (v[h % dim] ?? 0) +
      ((h & 0x80000000) !== 0 ? -1 : 1) * (KIND_WEIGHT[features.kind(i)] ?? 0) * (1 + Math.log(features.count(i))) * features.weight(i);
  }
  return normalise(v);
}

/** FNV-1a, 32 bits: fast and stable across processes and releases (stored vectors depend on it); continued from `h`. */
function hash32(s: string, h = 0x811c9dc5): number {
  for (let i = 0; i < s.length; i++) h = fnvStep(h, s.charCodeAt(i));
  return h >>> 0;
}

function fnvStep(h: number, c: number): number {
  return Math.imul(h ^ c, 0x01000193);
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
