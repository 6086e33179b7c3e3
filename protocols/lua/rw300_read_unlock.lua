-- rw300_read_unlock.lua: RedissonReadLock unlock from 3.0.0 to 3.2.3 (the
-- blocking unlock(); its unlockAsync ran the plain lock's script until
-- 3.3.2). A lock that is gone answers 1 after publishing; in read mode
-- the thread's count drops by one, a hold still above 0 sets the hash TTL
-- to this thread's lease, and the last field of the last reader deletes
-- the hash and publishes. In write mode: nil.
-- KEYS: [1] rw hash, [2] rw channel. ARGV: [1] unlock message (0),
-- [2] lease ms, [3] lockName "<id>:<t>".
-- Reply: nil = not a reader, 0 = still held, 1 = released (or no lock).
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call('publish', KEYS[2], ARGV[1])
    return 1
end
if mode ~= 'read' or redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
    return nil
end
local left = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if left > 0 then
    redis.call('pexpire', KEYS[1], ARGV[2])
    return 0
end
redis.call('hdel', KEYS[1], ARGV[3])
if redis.call('hlen', KEYS[1]) == 1 then
    redis.call('del', KEYS[1])
    redis.call('publish', KEYS[2], ARGV[1])
end
return 1
