-- rw_read_acquire.lua: RedissonReadLock acquire (PROTOCOLS.md 5.2 READ_ACQUIRE).
-- KEYS: [1] rw hash, [2] this thread's timeout prefix "{name}:<id>:<t>:rwlock_timeout".
-- ARGV: [1] lease ms, [2] read lockName "<id>:<t>", [3] write lockName "<id>:<t>:write".
-- A free lock becomes read mode; read mode, or write mode held by this
-- thread (downgrade), adds a read hold with its own timeout key k and
-- stretches the hash TTL to max(ttl, lease). Otherwise the ttl in ms.
-- Reply: nil = acquired; integer = held by others (-1: no TTL).
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call('hset', KEYS[1], 'mode', 'read')
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('set', KEYS[2] .. ':1', 1)
    redis.call('pexpire', KEYS[2] .. ':1', ARGV[1])
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if mode == 'read' or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then
    local k = redis.call('hincrby', KEYS[1], ARGV[2], 1)
    local timeout = KEYS[2] .. ':' .. k
    redis.call('set', timeout, 1)
    redis.call('pexpire', timeout, ARGV[1])
    local left = redis.call('pttl', KEYS[1])
    redis.call('pexpire', KEYS[1], math.max(left, ARGV[1]))
    return nil
end
return redis.call('pttl', KEYS[1])
