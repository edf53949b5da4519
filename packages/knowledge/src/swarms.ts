/**
 * Swarms and exclusive leases (svc_swarm_create, svc_claim). A lease is one Redis string with a
 * PX expiry; claim, renew and release are each one Lua script, so of many agents claiming a free
 * resource at the same moment exactly one wins, and only the holder can renew or release.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { kbKeys } from './keys.ts';
import { runScript, script } from '@svc/limits';

const SWARM_LIMITS = { perProject: 1_000 } as const;

export interface Swarm {
  id: string;
  name: string;
  description: string;
  createdBy: string;
  createdAt: string;
}

export interface LeaseHolder {
  /** Identity compared on renew and release. */
  holder: string;
  /** Shown to other agents. */
  label: string;
  claimedAt: string;
}

export type LeaseAction = 'claim' | 'renew' | 'release' | 'status';
export type LeaseOutcome = 'acquired' | 'renewed' | 'released' | 'held' | 'not_held' | 'free';

export interface LeaseResult {
  outcome: LeaseOutcome;
  /** The holder after the call (null when free). */
  lease: (LeaseHolder & { expiresAt: string }) | null;
}

// KEYS: names hash, swarms hash. ARGV: name, id, JSON, limit.
const CREATE = script(`
local existing = redis.call('HGET', KEYS[1], ARGV[1])
if existing then return {'exists', redis.call('HGET', KEYS[2], existing)} end
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[4]) then return {'full', ''} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return {'created', ARGV[3]}
`);

export async function createSwarm(
  redis: Redis,
  project: string,
  input: { name: string; description?: string; createdBy: string },
): Promise<{ swarm: Swarm; created: boolean } | { full: true }> {
  const swarm: Swarm = {
    id: `swarm_${randomBytes(6).toString('base64url')}`,
    name: input.name,
    description: input.description ?? '',
    createdBy: input.createdBy,
    createdAt: new Date().toISOString(),
  };
  const k = kbKeys(project);
  const [status, json] = (await runScript(
    redis,
    CREATE,
    [k.swarmNames, k.swarms],
    [swarm.name, swarm.id, JSON.stringify(swarm), SWARM_LIMITS.perProject],
  )) as [string, string];
  if (status === 'full') return { full: true };
  return { swarm: JSON.parse(json) as Swarm, created: status === 'created' };
}

/** A swarm of this project by id or by name; null when this project has none such. */
export async function findSwarm(redis: Redis, project: string, idOrName: string): Promise<Swarm | null> {
  const k = kbKeys(project);
  const byId = await redis.hget(k.swarms, idOrName);
  const json = byId ?? (await redis.hget(k.swarmNames, idOrName).then((id) => (id ? redis.hget(k.swarms, id) : null)));
  return json ? (JSON.parse(json) as Swarm) : null;
}

// KEYS: lease. ARGV: action, holder, value JSON, ttl ms. Returns {outcome, value, pttl}.
const LEASE = script(`
local v = redis.call('GET', KEYS[1])
local action = ARGV[1]
if not v then
  if action == 'claim' then
    redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
    return {'acquired', ARGV[3], tonumber(ARGV[4])}
  end
  if action == 'status' then return {'free', '', 0} end
  return {'not_held', '', 0}
end
local current = cjson.decode(v)
if action == 'status' or current.holder ~= ARGV[2] then return {'held', v, redis.call('PTTL', KEYS[1])} end
if action == 'release' then
  redis.call('DEL', KEYS[1])
  return {'released', '', 0}
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {'renewed', v, tonumber(ARGV[4])}
`);

export async function lease(
  redis: Redis,
  project: string,
  input: { swarmId: string; resource: string; action: LeaseAction; holder: string; label: string; leaseSeconds: number },
): Promise<LeaseResult> {
  const resourceHash = createHash('sha256').update(input.resource).digest('base64url').slice(0, 22);
  const key = kbKeys(project).lease(input.swarmId, resourceHash);
  const value: LeaseHolder = { holder: input.holder, label: input.label, claimedAt: new Date().toISOString() };
  const [outcome, json, pttl] = (await runScript(
    redis,
    LEASE,
    [key],
    [input.action, input.holder, JSON.stringify(value), input.leaseSeconds * 1000],
  )) as [LeaseOutcome, string, number];
  const current = json ? (JSON.parse(json) as LeaseHolder) : null;
  return {
    outcome,
    lease: current && outcome !== 'released' ? { ...current, expiresAt: new Date(Date.now() + Math.max(0, pttl)).toISOString() } : null,
  };
}
