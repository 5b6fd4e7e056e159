-- Shared head of every ctxguard script: ARGV[1] is the key prefix, ARGV[2]
-- the fan-out channel. Time comes from Redis, one clock for every instance.
local prefix, channel = ARGV[1], ARGV[2]
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local sessions_key, leases_key = prefix .. 'sessions', prefix .. 'leases'
local activity_key = prefix .. 'activity'

local function key(sid, part)
  return prefix .. 's:' .. sid .. ':' .. part
end

-- A number as Redis must get it: every digit (Lua's own conversion keeps 14).
local function digits(n)
  return string.format('%.0f', n)
end

-- The store's activity sequence, the score of `sessions`: max(last + 1, now in
-- µs), as event ids are. It never ties, so sessions active within the same
-- millisecond keep the order they were active in (a tie would be broken by
-- name), and it still reads as a time for idling.
local function next_activity()
  local last = tonumber(redis.call('GET', activity_key) or '0')
  local activity = math.max(last + 1, now_us)
  redis.call('SET', activity_key, digits(activity))
  return digits(activity)
end

-- Marks a session active now (`XX`: only if it is in `sessions`).
local function touch(sid, xx)
  if xx then
    redis.call('ZADD', sessions_key, 'XX', next_activity(), sid)
  else
    redis.call('ZADD', sessions_key, next_activity(), sid)
  end
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
