-- rsem_multi_acquire.lua: redis-semaphore 5.x MultiSemaphore acquire
-- (src/multiSemaphore/acquire/lua.ts, v5.7.0): as the Semaphore's, with
-- n members "<identifier>_0" .. "_<n-1>", all or none.
-- KEYS[1] the set; ARGV[1] limit, ARGV[2] n, ARGV[3] identifier,
-- ARGV[4] lockTimeout ms, ARGV[5] the caller's now (ms).
-- Reply: 1 acquired, 0 not enough permits free.
local n = tonumber(ARGV[2])
local now = tonumber(ARGV[5])
local timeout = tonumber(ARGV[4])
redis.call('zremrangebyscore', KEYS[1], '-inf', now - timeout)
if redis.call('zcard', KEYS[1]) + n > tonumber(ARGV[1]) then
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
