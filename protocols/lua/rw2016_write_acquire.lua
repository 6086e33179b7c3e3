-- rw2016_write_acquire.lua: RedissonWriteLock acquire before 3.5.5
-- (cbda17c68, issue #1110): as rw_write_acquire.lua, but this thread's
-- re-entry SETS the TTL to its lease instead of adding the lease to what
-- is left, so a re-entry with a shorter lease shortens the outer hold.
-- KEYS: [1] rw hash. ARGV: [1] lease ms, [2] write lockName "<id>:<t>:write".
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
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
