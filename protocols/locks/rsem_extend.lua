-- rsem_extend.lua: redis-semaphore 5.x Mutex refresh (src/mutex/refresh.ts,
-- v5.7.0): extend the key while it holds our identifier; a missing key is
-- not made again (5.3.1).
-- KEYS[1] the mutex key; ARGV[1] identifier, ARGV[2] lockTimeout ms.
-- Reply: 1 extended, 0 not ours (expired, or taken).
if redis.call('get', KEYS[1]) == ARGV[1] then
    redis.call('pexpire', KEYS[1], ARGV[2])
    return 1
end
return 0
