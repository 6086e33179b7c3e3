-- rsem_acquire.lua: redis-semaphore 5.x Semaphore acquire
-- (src/semaphore/acquire/lua.ts, v5.7.0). The holders are a sorted set
-- scored by each holder's own clock at its last acquire or refresh; the
-- caller first drops every member older than lockTimeout by ITS clock.
-- KEYS[1] the set; ARGV[1] limit, ARGV[2] identifier, ARGV[3] lockTimeout
-- ms, ARGV[4] the caller's now (ms).
-- Reply: 1 acquired, 0 every permit taken.
local now = tonumber(ARGV[4])
local timeout = tonumber(ARGV[3])
redis.call('zremrangebyscore', KEYS[1], '-inf', now - timeout)
if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[1]) then
    return 0
end
redis.call('zadd', KEYS[1], now, ARGV[2])
redis.call('pexpire', KEYS[1], timeout)
return 1
