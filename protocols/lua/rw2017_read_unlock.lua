-- rw2017_read_unlock.lua: RedissonReadLock unlock from 3.3.2 to 3.4.2
-- (ccda1ee99): as rw2019_read_unlock.lua without its write-mode guard
-- (48ddec70e, 3.4.3, issue #891). A thread that holds write and a nested
-- read finds, once its read is gone, only its write field, which has no
-- read timeout keys: the longest read TTL is -2, and the script DELETES
-- the hash, its own write hold with it, and publishes.
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
end
redis.call('del', KEYS[1])
redis.call('publish', KEYS[2], ARGV[1])
return 1
