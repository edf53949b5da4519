/**
 * The gateway's batched rate-limit script (docs/operations.md "Rate limits": the gateway's
 * buckets), run by rate-limiter.ts through the one Lua runner of `@svc/limits`.
 */
import { script } from '@svc/limits';

// KEYS: 1 workspace minute, 2 workspace month, 3 month's usage hash, 4 day's usage hash, 5.. the key
// minutes, agent buckets' minutes and DPoP proofs of this batch.
// ARGV: 1 plan per-minute limit, 2 minute TTL, 3 monthly limit (-1 none), 4 fair use, 5 month TTL,
// 6 number of runs, 7 day hash TTL, 8 DPoP proofs' TTL, then per run of consecutive charges alike 8
// fields: how many, counts as a query, its key minute's index in KEYS (0 none), the key's own limit
// (-1 none), credential field, tool field ('' none), its DPoP proof's index in KEYS (0 none: a
// charge with a proof is a run of its own), how many agent buckets it spends (docs/operations.md
// "Limits for agents"); then 3 per agent bucket: its minute's index in KEYS, its limit, what one
// charge spends of it. A busy key's requests arrive alike, so a batch is usually one run: a few
// arguments, and three more per agent bucket only when its charges spend one.
// Returns 4 per charge: status (1 allowed, 0 rate limited, 2 quota exhausted, 3 the key's limit,
// 4 DPoP proof replayed: RFC 9449 §11.1, set NX before anything is counted, 5 + i the run's i-th
// agent bucket from 0), minute used, month used (-1 not counted), key minute used (-1 none). A
// refused charge counts in no counter: all of its buckets, or none.
export const ADMIT = script(`
local limit, monthLimit, fairUse = tonumber(ARGV[1]), tonumber(ARGV[3]), ARGV[4] == '1'
-- The counters are read once, decided on here, and written once at the end: the same outcome as
-- a GET and an INCR per charge, in a handful of commands whatever the batch's size.
local used0 = tonumber(redis.call('GET', KEYS[1]) or '0')
local used, q0, q = used0, nil, nil
local k0, k = {}, {}
-- A key's own or an agent bucket's minute counter, by its index in KEYS, read at its first use.
local function counter(index)
  if k[index] == nil then k0[index] = tonumber(redis.call('GET', KEYS[index]) or '0'); k[index] = k0[index] end
  return k[index]
end
local usage, fields = {}, {}
local function bump(field)
  if usage[field] == nil then usage[field] = 0; fields[#fields + 1] = field end
  usage[field] = usage[field] + 1
end
local out = {}
local a = 9
for _ = 1, tonumber(ARGV[6]) do
  local counts, kkey, klimit = ARGV[a + 1] == '1', tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  local credential, tool, proof = ARGV[a + 4], ARGV[a + 5], tonumber(ARGV[a + 6])
  -- The run's agent buckets: each {its counter's index, its limit, what a charge spends}.
  local agents = {}
  for i = 1, tonumber(ARGV[a + 7]) do
    local at = a + 5 + i * 3
    agents[i] = { tonumber(ARGV[at]), tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]) }
  end
  for _ = 1, tonumber(ARGV[a]) do
    local status, cq, ck = 1, -1, -1
    if proof > 0 and not redis.call('SET', KEYS[proof], '1', 'NX', 'EX', ARGV[8]) then status = 4 end
    if status == 1 and used >= limit then status = 0 end
    if status == 1 and kkey > 0 then
      ck = counter(kkey)
      if ck >= klimit then status = 3 end
    end
    if status == 1 then
      for i, g in ipairs(agents) do
        if counter(g[1]) + g[3] > g[2] then status = 4 + i; break end
      end
    end
    if status == 1 and counts then
      if q == nil then q0 = tonumber(redis.call('GET', KEYS[2]) or '0'); q = q0 end
      cq = q
      if monthLimit >= 0 and q >= monthLimit and not fairUse then status = 2 end
    end
    if status == 1 then
      used = used + 1
      if counts then q = q + 1; cq = q end
      if kkey > 0 then k[kkey] = k[kkey] + 1; ck = k[kkey] end
      for _, g in ipairs(agents) do k[g[1]] = k[g[1]] + g[3] end
      bump(credential)
      if tool ~= '' then bump(tool) end
    end
    out[#out + 1] = status
    out[#out + 1] = used
    out[#out + 1] = cq
    out[#out + 1] = ck
  end
  a = a + 8 + #agents * 3
end
if used > used0 then
  redis.call('INCRBY', KEYS[1], used - used0)
  if used0 == 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
end
if q ~= nil and q > q0 then
  redis.call('INCRBY', KEYS[2], q - q0)
  if q0 == 0 then redis.call('EXPIRE', KEYS[2], ARGV[5]) end
end
for kkey, n in pairs(k) do
  if n > k0[kkey] then
    redis.call('INCRBY', KEYS[kkey], n - k0[kkey])
    if k0[kkey] == 0 then redis.call('EXPIRE', KEYS[kkey], ARGV[2]) end
  end
end
-- The month's and the day's usage hashes get the same counts (docs/redis-schema.md "Usage").
local function count(hash, ttl)
  local fresh = redis.call('EXISTS', hash) == 0
  for _, field in ipairs(fields) do redis.call('HINCRBY', hash, field, usage[field]) end
  if fresh then redis.call('EXPIRE', hash, ttl) end
end
if #fields > 0 then
  count(KEYS[3], ARGV[5])
  count(KEYS[4], ARGV[7])
end
return out
`);
