-- sem_try_set.lua: RedissonSemaphore trySetPermits(n) (PROTOCOLS.md §6.1).
-- KEYS: [1] the permit count, [2] the semaphore channel.
-- ARGV: [1] n, [2] publish command.
-- Sets the count only when the key is absent and publishes it: 1; else 0.
if redis.call('get', KEYS[1]) ~= false then
    return 0
end
redis.call('set', KEYS[1], ARGV[1])
redis.call(ARGV[2], KEYS[2], ARGV[1])
return 1
