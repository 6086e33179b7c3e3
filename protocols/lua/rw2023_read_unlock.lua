-- rw2023_read_unlock.lua: RedissonReadLock unlock of 3.24.0 .. 3.43.0
-- (READ_UNLOCK with the unlock latch of 3.24): rw_read_unlock.lua except
-- that a missing lock answers 1 (and latches 1), as it did before the
-- latch; 3.44.0 answers nil (1ce49b7a2, RedissonReadLock.unlockInnerAsync).
-- KEYS: [1] rw hash, [2] rw channel, [3] this thread's timeout prefix,
--       [4] key prefix "{name}", [5] latch key of this request.
-- ARGV: [1] unlock message (0), [2] read lockName, [3] publish command,
--       [4] latch TTL ms.
-- The newest hold's timeout key goes (LIFO); while others hold, the hash
-- TTL becomes the longest remaining read timeout (a read mode whose
-- timeouts all lapsed is deleted), or stays as it is in write mode.
-- Reply: nil = not a holder, 0 = still held, 1 = freed (or no lock).
local earlier = redis.call('get', KEYS[5])
if earlier ~= false then
    return tonumber(earlier)
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call(ARGV[3], KEYS[2], ARGV[1])
    redis.call('set', KEYS[5], 1, 'px', ARGV[4])
    return 1
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
    return nil
end
local left = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if left == 0 then
    redis.call('hdel', KEYS[1], ARGV[2])
end
redis.call('del', KEYS[3] .. ':' .. (left + 1))
if redis.call('hlen', KEYS[1]) > 1 then
    local longest = -3
    for _, field in ipairs(redis.call('hkeys', KEYS[1])) do
        local holds = tonumber(redis.call('hget', KEYS[1], field))
        if type(holds) == 'number' then
            for k = holds, 1, -1 do
                local ttl = redis.call('pttl', KEYS[4] .. ':' .. field .. ':rwlock_timeout:' .. k)
                longest = math.max(longest, ttl)
            end
        end
    end
    if longest > 0 then
        redis.call('pexpire', KEYS[1], longest)
        redis.call('set', KEYS[5], 0, 'px', ARGV[4])
        return 0
    end
    if mode == 'write' then
        redis.call('set', KEYS[5], 0, 'px', ARGV[4])
        return 0
    end
end
redis.call('del', KEYS[1])
redis.call(ARGV[3], KEYS[2], ARGV[1])
redis.call('set', KEYS[5], 1, 'px', ARGV[4])
return 1
