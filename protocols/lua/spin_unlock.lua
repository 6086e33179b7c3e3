-- spin_unlock.lua: RedissonSpinLock unlock: the reentrant unlock with the
-- unlock latch, and no message (nobody subscribes: waiters poll).
-- KEYS: [1] lock hash, [2] latch key of this request.
-- ARGV: [1] lease ms to restore while still held, [2] lockName,
--       [3] latch TTL ms.
-- Reply: nil = not the owner, 0 = still held, 1 = free.
local earlier = redis.call('get', KEYS[2])
if earlier ~= false then
    return tonumber(earlier)
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
    return nil
end
local left = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if left > 0 then
    redis.call('pexpire', KEYS[1], ARGV[1])
    redis.call('set', KEYS[2], 0, 'px', ARGV[3])
    return 0
end
redis.call('del', KEYS[1])
redis.call('set', KEYS[2], 1, 'px', ARGV[3])
return 1
