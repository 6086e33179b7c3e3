-- rw2019_read_unlock.lua: RedissonReadLock unlock before the unlock latch
-- (3.24) and before 3.44's nil for a missing lock: a resent request runs
-- again, and unlocking a lock that is gone answers 1.
-- KEYS: [1] rw hash, [2] rw channel, [3] this thread's timeout prefix,
--       [4] key prefix "{name}". ARGV: [1] unlock message (0), [2] read lockName.
-- Reply: nil = not a holder, 0 = still held, 1 = freed (or no lock).
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call('publish', KEYS[2], ARGV[1])
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
        return 0
    end
    if mode == 'write' then
        return 0
    end
end
redis.call('del', KEYS[1])
redis.call('publish', KEYS[2], ARGV[1])
return 1
