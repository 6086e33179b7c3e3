-- rsem_refresh.lua: redis-semaphore 5.x Semaphore refresh
-- (src/semaphore/refresh/lua.ts, v5.7.0): the same purge by the caller's
-- clock, then our member's score moves to now if it is still there.
-- KEYS[1] the set; ARGV[1] limit (unused), ARGV[2] identifier, ARGV[3]
-- lockTimeout ms, ARGV[4] the caller's now (ms).
-- Reply: 1 refreshed, 0 our member is gone (the permit is lost).
local now = tonumber(ARGV[4])
local timeout = tonumber(ARGV[3])
redis.call('zremrangebyscore', KEYS[1], '-inf', now - timeout)
if not redis.call('zscore', KEYS[1], ARGV[2]) then
    return 0
end
redis.call('zadd', KEYS[1], now, ARGV[2])
redis.call('pexpire', KEYS[1], timeout)
return 1
