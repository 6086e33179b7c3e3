-- rw_write_acquire.lua: RedissonWriteLock acquire (PROTOCOLS.md 5.2 WRITE_ACQUIRE).
-- KEYS: [1] rw hash. ARGV: [1] lease ms, [2] write lockName "<id>:<t>:write".
-- A free lock becomes write mode; this thread's own write hold re-enters
-- and its lease is ADDED to the remaining TTL. A reader (even this thread:
-- no upgrade) or another writer gets the ttl in ms.
-- Reply: nil = acquired; integer = held by others (-1: no TTL).
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call('hset', KEYS[1], 'mode', 'write')
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    local left = redis.call('pttl', KEYS[1])
    redis.call('pexpire', KEYS[1], left + ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
