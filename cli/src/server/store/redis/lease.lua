-- ARGV[3] lease in ms, [4] '1' to create absent sessions (built-in ones),
-- then session ids. Leases each (and marks it active); drops expired leases.
local until_ms = now_ms + tonumber(ARGV[3])
for i = 5, #ARGV do
  local sid = ARGV[i]
  local exists = redis.call('ZSCORE', sessions_key, sid)
  if exists or ARGV[4] == '1' then
    if not exists then
      redis.call('HSETNX', key(sid, 'state'), 'last', '0')
    end
    touch(sid)
    redis.call('ZADD', leases_key, until_ms, sid)
  end
end
redis.call('ZREMRANGEBYSCORE', leases_key, '-inf', now_ms)
return 1
