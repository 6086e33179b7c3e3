-- rsem_multi_refresh.lua: redis-semaphore 5.x MultiSemaphore refresh
-- (src/multiSemaphore/refresh/lua.ts, v5.7.0): the purge, then if member
-- "_0" is still there all n members are scored now again (those the
-- purge took included).
-- KEYS[1] the set; ARGV as rsem_multi_acquire.lua.
-- Reply: 1 refreshed, 0 member "_0" is gone.
local n = tonumber(ARGV[2])
local now = tonumber(ARGV[5])
local timeout = tonumber(ARGV[4])
redis.call('zremrangebyscore', KEYS[1], '-inf', now - timeout)
if not redis.call('zscore', KEYS[1], ARGV[3] .. '_0') then
    return 0
end
local members = {}
for i = 0, n - 1 do
    members[#members + 1] = now
    members[#members + 1] = ARGV[3] .. '_' .. i
end
redis.call('zadd', KEYS[1], unpack(members))
redis.call('pexpire', KEYS[1], timeout)
return 1
