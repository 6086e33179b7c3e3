-- rw324_read_acquire.lua: RedissonReadLock acquire from 3.2.4 to 3.3.1
-- (0ffc2ca1e, issue #758): as rw300_read_acquire.lua, and a thread that
-- holds the write lock (its field "<id>:<t>:write") may also read: a
-- downgrade. A read hold still sets the hash TTL to its own lease.
-- KEYS: [1] rw hash (a second key is passed and unused).
-- ARGV: [1] lease ms, [2] read lockName "<id>:<t>", [3] write lockName.
-- Reply: nil = acquired; integer = held by others (-1: no TTL).
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call('hset', KEYS[1], 'mode', 'read')
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if mode == 'read' or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
