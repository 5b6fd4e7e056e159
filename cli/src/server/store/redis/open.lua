-- ARGV[3] session, [4] id to read the log after ('' for none), [5] most
-- entries, [6] lease in ms (0: none). Returns nil for an unknown session,
-- else {state hash, log entries after the id}; a lease marks the session as
-- having open streams (never evicted or idled while it lasts).
local sid = ARGV[3]
local state = key(sid, 'state')
if redis.call('EXISTS', state) == 0 then
  return false
end
local lease_ms = tonumber(ARGV[6])
if lease_ms > 0 then
  redis.call('ZADD', leases_key, now_ms + lease_ms, sid)
  touch(sid, true)
end
local entries = {}
if ARGV[4] ~= '' then
  entries = redis.call('XRANGE', key(sid, 'log'), '(' .. ARGV[4] .. '-0', '+', 'COUNT', ARGV[5])
end
return {redis.call('HGETALL', state), entries}
