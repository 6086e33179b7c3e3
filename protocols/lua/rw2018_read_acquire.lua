-- rw2018_read_acquire.lua: RedissonReadLock acquire before 3.11.1 (issue
-- #2144): as rw_read_acquire.lua, but a read hold added to a held lock
-- sets the hash TTL to its own lease, which can SHORTEN it: a reader with
-- a 1 s lease joining one with 20 s leaves the hash 1 s to live, and when
-- the short one stops renewing (it crashed, or its lease was explicit) the
-- whole hash expires under the other reader.
-- KEYS: [1] rw hash, [2] this thread's timeout prefix "{name}:<id>:<t>:rwlock_timeout".
-- ARGV: [1] lease ms, [2] read lockName "<id>:<t>", [3] write lockName "<id>:<t>:write".
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
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
