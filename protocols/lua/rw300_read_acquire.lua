-- rw300_read_acquire.lua: RedissonReadLock acquire from 3.0.0 to 3.2.3:
-- read and write holds share one field name "<id>:<t>" and there is no
-- downgrade: a thread that holds write and asks for read waits for itself
-- (0ffc2ca1e, 3.2.4, issue #758, lets the writer read). A read hold sets
-- the hash TTL to its own lease; there are no read timeout keys.
-- KEYS: [1] rw hash (a second key is passed and unused).
-- ARGV: [1] lease ms, [2] lockName "<id>:<t>" (a third is unused).
-- Reply: nil = acquired; integer = held in write mode (-1: no TTL).
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call('hset', KEYS[1], 'mode', 'read')
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if mode == 'read' then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
