-- fair2019_unlock.lua: RedissonFairLock unlock as in 3.13.2 (no latch, so a
-- resent request decrements again; literal publish; purge without the nil
-- test of 3.32).
-- KEYS: [1] lock hash, [2] wait queue, [3] deadlines zset, [4] channel
--       prefix (the head's lockName is appended after ':').
-- ARGV: [1] unlock message (0), [2] lease ms, [3] lockName, [4] now (ms).
-- Reply: nil = not the owner, 0 = still held, 1 = free (or already gone).
while true do
    local head = redis.call('lindex', KEYS[2], 0)
    if head == false then
        break
    end
    local deadline = tonumber(redis.call('zscore', KEYS[3], head))
    if deadline <= tonumber(ARGV[4]) then
        redis.call('zrem', KEYS[3], head)
        redis.call('lpop', KEYS[2])
    else
        break
    end
end
if redis.call('exists', KEYS[1]) == 0 then
    local head = redis.call('lindex', KEYS[2], 0)
    if head ~= false then
        redis.call('publish', KEYS[4] .. ':' .. head, ARGV[1])
    end
    return 1
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
    return nil
end
local left = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if left > 0 then
    redis.call('pexpire', KEYS[1], ARGV[2])
    return 0
end
redis.call('del', KEYS[1])
local head = redis.call('lindex', KEYS[2], 0)
if head ~= false then
    redis.call('publish', KEYS[4] .. ':' .. head, ARGV[1])
end
return 1
