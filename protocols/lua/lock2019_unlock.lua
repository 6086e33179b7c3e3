-- lock2019_unlock.lua: RedissonLock unlock as in 3.11 (2019): no latch, so
-- a resent request decrements again. KEYS: lock hash, channel.
-- ARGV: unlock message (0), lease ms, lockName.
-- Reply: nil = not the owner, 0 = still held, 1 = released.
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
    return nil
end
local left = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if left > 0 then
    redis.call('pexpire', KEYS[1], ARGV[2])
    return 0
end
redis.call('del', KEYS[1])
redis.call('publish', KEYS[2], ARGV[1])
return 1
