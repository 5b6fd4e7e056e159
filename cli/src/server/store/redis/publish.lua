-- ARGV[3] session, [4] buffer, [5] max sessions, [6] id floor, then (flag, data)
-- pairs: flag 0 a raw line, 1 a valid event, 2 a valid event with a compaction.
-- Appends the events with ids max(last + 1, now in µs, floor), trims the log
-- to the buffer, keeps the latest and latest compaction events, and wakes
-- every instance. A new session past the cap evicts the least recently active
-- one without a lease (by the activity sequence: never a tie), or fails with FULL.
local sid = ARGV[3]
local buffer = tonumber(ARGV[4])
if not redis.call('ZSCORE', sessions_key, sid) and redis.call('ZCARD', sessions_key) >= tonumber(ARGV[5]) then
  local victim = nil
  local offset = 0
  while not victim do
    local batch = redis.call('ZRANGE', sessions_key, offset, offset + 99)
    if #batch == 0 then break end
    for _, candidate in ipairs(batch) do
      if not leased(candidate) then
        victim = candidate
        break
      end
    end
    offset = offset + 100
  end
  if not victim then
    return redis.error_reply('FULL every session has open streams')
  end
  forget(victim)
end
local state, log = key(sid, 'state'), key(sid, 'log')
local prev = tonumber(redis.call('HGET', state, 'last') or '0')
local id = math.max(prev + 1, now_us, tonumber(ARGV[6]))
local ids, events = {}, {}
for i = 7, #ARGV, 2 do
  local flag, data = ARGV[i], ARGV[i + 1]
  local id_s, prev_s = string.format('%.0f', id), string.format('%.0f', prev)
  redis.call('XADD', log, 'MAXLEN', buffer, id_s .. '-0', 'p', prev_s, 'd', data)
  if flag ~= '0' then
    redis.call('HSET', state, 'latest_id', id_s, 'latest', data)
  end
  if flag == '2' then
    redis.call('HSET', state, 'comp_id', id_s, 'comp', data)
  end
  ids[#ids + 1] = id_s
  events[#events + 1] = {id_s, prev_s, data}
  prev = id
  id = id + 1
end
redis.call('HSET', state, 'last', string.format('%.0f', prev))
touch(sid)
redis.call('PUBLISH', channel, cjson.encode({s = sid, e = events}))
return ids
