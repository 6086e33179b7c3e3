-- sem_try_acquire.lua: RedissonSemaphore tryAcquire(n) (PROTOCOLS.md §6.1).
-- KEYS[1] the permit count (a string integer; absent counts as none).
-- ARGV[1] n, the permits wanted.
-- Takes n permits when at least n are available: 1, else 0 (no change).
local available = redis.call('get', KEYS[1])
if available ~= false and tonumber(available) >= tonumber(ARGV[1]) then
    redis.call('decrby', KEYS[1], ARGV[1])
    return 1
end
return 0
