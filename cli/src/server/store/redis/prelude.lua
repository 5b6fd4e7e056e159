-- Shared head of every ctxguard script: ARGV[1] is the key prefix, ARGV[2]
-- the fan-out channel. Time comes from Redis, one clock for every instance.
local prefix, channel = ARGV[1], ARGV[2]
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local sessions_key, leases_key = prefix .. 'sessions', prefix .. 'leases'

local function key(sid, part)
  return prefix .. 's:' .. sid .. ':' .. part
end

-- Drops a session everywhere and tells every instance to end its streams.
local function forget(sid)
  local existed = redis.call('ZREM', sessions_key, sid)
  redis.call('ZREM', leases_key, sid)
  redis.call('DEL', key(sid, 'state'), key(sid, 'log'))
  redis.call('PUBLISH', channel, cjson.encode({s = sid, forget = true}))
  return existed
end

-- Whether some instance holds streams of the session open (or runs it).
local function leased(sid)
  local lease = redis.call('ZSCORE', leases_key, sid)
  return lease and tonumber(lease) > now_ms
end
