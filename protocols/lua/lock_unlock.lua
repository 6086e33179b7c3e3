-- lock_unlock.lua: RedissonLock unlock, current form (since 3.24), with the
-- unlock latch that makes a replayed request answer what the first run did.
-- KEYS: [1] lock hash, [2] unlock channel, [3] latch key of this request.
-- ARGV: [1] unlock message (0), [2] lease ms to restore while still held,
--       [3] lockName, [4] publish command, [5] latch TTL ms.
-- Reply: nil = not the owner, 0 = still held (one level released), 1 = free.
local earlier = redis.call('get', KEYS[3])
if earlier ~= false then
    return tonumber(earlier)
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
    return nil
end
local left = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if left > 0 then
    redis.call('pexpire', KEYS[1], ARGV[2])
    redis.call('set', KEYS[3], 0, 'px', ARGV[5])
    return 0
end
redis.call('del', KEYS[1])
redis.call(ARGV[4], KEYS[2], ARGV[1])
redis.call('set', KEYS[3], 1, 'px', ARGV[5])
return 1
