-- sem_drain.lua: RedissonSemaphore drainPermits() (PROTOCOLS.md §6.1).
-- KEYS[1] the permit count.
-- Takes every available permit: replies how many (0 when absent) and
-- leaves the count at 0.
local current = redis.call('get', KEYS[1])
if current == false then
    return 0
end
redis.call('set', KEYS[1], 0)
return current
