-- ARGV[3] idle time in ms, [4] most sessions to look at. Forgets sessions
-- with no activity for that long and no lease; returns how many.
-- Activity is in µs (the activity sequence).
local idle_before = digits(now_us - tonumber(ARGV[3]) * 1000)
local idle = redis.call('ZRANGEBYSCORE', sessions_key, '-inf', idle_before, 'LIMIT', 0, tonumber(ARGV[4]))
local n = 0
for _, sid in ipairs(idle) do
  if not leased(sid) then
    forget(sid)
    n = n + 1
  end
end
return n
