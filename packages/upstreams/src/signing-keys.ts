/**
 * The keys forwarded tokens are signed with, as Redis keeps them (docs/redis-schema.md
 * `svc:upstream-signing-keys`; docs/upstream-servers.md "Key rotation"): one JSON value holding every
 * key still published, newest first, each private half sealed under KEY_PEPPER. A key signs from its
 * `activeFrom` (the first key: from when it was made) until a newer key's time comes; a key replaced
 * stays published until its `retiresAt`, when the last token it signed has expired. The first
 * gateway to need a key makes one (SET NX); `svc-admin upstream-signing-key rotate` adds the next
 * with one compare-and-set, so two rotations, or a rotation and a first gateway, never lose a key.
 */
import { generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { K, sealValue, type Redis } from '@svc/accounts';
import { runScript, script } from '@svc/limits';
import { UPSTREAM_LIMITS } from './limits.ts';

/** How a private half is sealed: under KEY_PEPPER, for this purpose only. */
export const SIGNING_KEY_SEAL = { for: 'upstream-signing-key', info: 'svc upstream signing key v1' } as const;

/** One key as stored. */
export interface StoredKey {
  /** RFC 7638 thumbprint of the public key. */
  kid: string;
  public: JWK;
  /** The private JWK, sealed (AES-256-GCM under HKDF(KEY_PEPPER)). */
  sealed: string;
  createdAt: number;
  /** When it starts signing, ms; absent: from when it was made. */
  activeFrom?: number;
  /** When it leaves the JWK Set, ms; absent: it has not been replaced. */
  retiresAt?: number;
}

/** The stored keys of the value `text` (null: none made yet). */
export function storedKeys(text: string | null): StoredKey[] {
  return text ? (JSON.parse(text) as { keys: StoredKey[] }).keys : [];
}

/** Whether `k` is in the JWK Set at `now`. */
export const isPublished = (k: StoredKey, now: number) => k.retiresAt === undefined || k.retiresAt > now;

/** The key that signs at `now`: of the published ones, the newest whose time has come. */
export function keyInUse(keys: readonly StoredKey[], now: number): StoredKey | undefined {
  let best: StoredKey | undefined;
  for (const k of keys)
    if (isPublished(k, now) && (k.activeFrom ?? 0) <= now && (!best || (k.activeFrom ?? 0) > (best.activeFrom ?? 0))) best = k;
  return best;
}

/** A new ES256 (P-256) key, its private half sealed, signing from `activeFrom` (absent: at once). */
async function newStoredKey(pepper: string, createdAt: number, activeFrom?: number): Promise<StoredKey> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
  const sealed = sealValue(pepper, SIGNING_KEY_SEAL.for, JSON.stringify(privateKey.export({ format: 'jwk' })), SIGNING_KEY_SEAL.info);
  const key: StoredKey = { kid: await calculateJwkThumbprint(publicJwk), public: publicJwk, sealed, createdAt };
  if (activeFrom !== undefined) key.activeFrom = activeFrom;
  return key;
}

/** The stored value, after making the first key when there is none (every gateway may race: the first SET NX wins). */
export async function readOrMakeKeys(redis: Redis, pepper: string, now: number): Promise<string> {
  const text = await redis.get(K.upstreamSigningKeys());
  if (text) return text;
  await redis.set(K.upstreamSigningKeys(), JSON.stringify({ keys: [await newStoredKey(pepper, now)] }), 'NX');
  const made = await redis.get(K.upstreamSigningKeys());
  if (!made) throw new Error('the upstream signing keys could not be stored');
  return made;
}

/** Compare and set: KEYS[1] is replaced by ARGV[2] only while it holds ARGV[1] ('' for absent). Returns 1, or 0. */
const SET_IF_UNCHANGED = script(`
local now = redis.call('GET', KEYS[1]) or ''
if now ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`);

/** A rotation refused: the last one has not taken effect yet. */
export class RotationRefused extends Error {
  override name = 'RotationRefused';
}

/** What a rotation did: the new key, when it signs from, and until when the key it replaces is published. */
export interface Rotation {
  kid: string;
  signsFrom: number;
  replaced: { kid: string; publishedUntil: number } | null;
}

/**
 * Adds a new key: published now, signing from UPSTREAM_LIMITS.signingKeys.publishLeadSeconds later
 * (at once when no key signs yet); the key in use then retires retireAfterSeconds after that. Keys
 * already retired are dropped. Refused while the last rotation's key has not started signing: a key
 * never published long enough would be replaced before any verifier could have read it.
 */
export async function rotateSigningKey(redis: Redis, pepper: string, now: number): Promise<Rotation> {
  const { publishLeadSeconds, retireAfterSeconds } = UPSTREAM_LIMITS.signingKeys;
  for (let attempt = 0; attempt < 5; attempt++) {
    const read = await redis.get(K.upstreamSigningKeys());
    const live = storedKeys(read).filter((k) => isPublished(k, now));
    const waiting = live.find((k) => (k.activeFrom ?? 0) > now);
    if (waiting)
      throw new RotationRefused(
        `the key ${waiting.kid} of the last rotation signs from ${new Date(waiting.activeFrom!).toISOString()}; rotate again after that`,
      );
    const current = keyInUse(live, now);
    const fresh = await newStoredKey(pepper, now, current ? now + publishLeadSeconds * 1000 : undefined);
    const signsFrom = fresh.activeFrom ?? now;
    const publishedUntil = signsFrom + retireAfterSeconds * 1000;
    const next = [fresh, ...live.map((k) => (k === current ? { ...k, retiresAt: publishedUntil } : k))];
    if ((await runScript(redis, SET_IF_UNCHANGED, [K.upstreamSigningKeys()], [read ?? '', JSON.stringify({ keys: next })])) === 1)
      return { kid: fresh.kid, signsFrom, replaced: current ? { kid: current.kid, publishedUntil } : null };
  }
  throw new RotationRefused('the signing keys changed while they were rotated; try again');
}
