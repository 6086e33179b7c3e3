-- fair2019_force_unlock.lua: RedissonFairLock forceUnlock as in 3.13.2:
-- literal publish, purge without the nil test of 3.32.
-- KEYS: [1] lock hash, [2] wait queue, [3] deadlines zset, [4] channel
--       prefix (the head's lockName is appended after ':').
-- ARGV: [1] unlock message (0), [2] the client's now (ms).
-- Reply 1 if a lock was deleted, else 0.
while true do
    local head = redis.call('lindex', KEYS[2], 0)
    if head == false then
        break
    end
    local deadline = tonumber(redis.call('zscore', KEYS[3], head))
    if deadline <= tonumber(ARGV[2]) then
        redis.call('zrem', KEYS[3], head)
        redis.call('lpop', KEYS[2])
    else
        break
    end
end
if redis.call('del', KEYS[1]) == 1 then
    local head = redis.call('lindex', KEYS[2], 0)
    if head ~= false then
        redis.call('publish', KEYS[4] .. ':' .. head, ARGV[1])
    end
    return 1
end
return 0
