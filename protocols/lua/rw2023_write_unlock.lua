-- rw2023_write_unlock.lua: RedissonWriteLock unlock of 3.24.0 .. 3.43.0
-- (WRITE_UNLOCK with the unlock latch of 3.24): rw_write_unlock.lua except
-- that a missing lock answers 1 (and latches 1), as it did before the
-- latch; 3.44.0 answers nil (1ce49b7a2, RedissonWriteLock.unlockInnerAsync).
-- KEYS: [1] rw hash, [2] rw channel, [3] latch key of this request.
-- ARGV: [1] read-unlock message (1), [2] lease ms to restore while still
--       held, [3] write lockName, [4] publish command, [5] latch TTL ms.
-- The last write hold frees the lock (publishing 1: every waiter wakes),
-- or, when this thread still holds read, downgrades it to read mode
-- WITHOUT publishing. A reader is not the writer: nil.
-- Reply: nil = not the writer, 0 = still held, 1 = released (or no lock).
local earlier = redis.call('get', KEYS[3])
if earlier ~= false then
    return tonumber(earlier)
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call(ARGV[4], KEYS[2], ARGV[1])
    redis.call('set', KEYS[3], 1, 'px', ARGV[5])
    return 1
end
if mode == 'write' then
    if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
        return nil
    end
    local left = redis.call('hincrby', KEYS[1], ARGV[3], -1)
    if left > 0 then
        redis.call('pexpire', KEYS[1], ARGV[2])
        redis.call('set', KEYS[3], 0, 'px', ARGV[5])
        return 0
    end
    redis.call('hdel', KEYS[1], ARGV[3])
    if redis.call('hlen', KEYS[1]) == 1 then
        redis.call('del', KEYS[1])
        redis.call(ARGV[4], KEYS[2], ARGV[1])
    else
        redis.call('hset', KEYS[1], 'mode', 'read')
    end
    redis.call('set', KEYS[3], 1, 'px', ARGV[5])
    return 1
end
return nil
