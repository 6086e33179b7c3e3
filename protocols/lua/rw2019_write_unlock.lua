-- rw2019_write_unlock.lua: RedissonWriteLock unlock from 3.2.4 (0ffc2ca1e:
-- the write field "<id>:<t>:write", a downgrade left in read mode) to the
-- unlock latch (3.24), before 3.44's nil for a missing lock: a resent
-- request runs again, and unlocking a lock that is gone answers 1.
-- KEYS: [1] rw hash, [2] rw channel. ARGV: [1] read-unlock message (1),
-- [2] lease ms to restore while still held, [3] write lockName.
-- Reply: nil = not the writer, 0 = still held, 1 = released (or no lock).
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call('publish', KEYS[2], ARGV[1])
    return 1
end
if mode == 'write' then
    if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
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
    else
        redis.call('hset', KEYS[1], 'mode', 'read')
    end
    return 1
end
return nil
