-- psem_acquire.lua: RPermitExpirableSemaphore tryAcquire(n, lease) as
-- Redisson 3.23.4 .. 4.7 runs it (PROTOCOLS.md §6.3; n ids per call since
-- 3.23.4, "methods for multiple permits support added").
-- KEYS: [1] the available count, [2] the timeout set {name}:timeout
--       (member: a permit id, score: its deadline on the client's clock),
--       [3] the semaphore channel.
-- ARGV: [1] n, [2] the deadline (client ms; 922337203685477: no lease),
--       [3] the client's now (ms), [4] the no-lease score, [5] publish
--       command, [6..] the n permit ids.
-- First up to n permits whose deadline has passed come back to the count
-- (published when it is positive). Then, with n available: take them,
-- give each id the deadline, let the timeout set expire with the count,
-- reply "OK". Otherwise reply ":" .. the nearest deadline when there is
-- one with a lease, else nil.
local expired = redis.call('zrangebyscore', KEYS[2], 0, ARGV[3], 'limit', 0, ARGV[1])
if #expired > 0 then
    redis.call('zrem', KEYS[2], unpack(expired))
    local back = redis.call('incrby', KEYS[1], #expired)
    if tonumber(back) > 0 then
        redis.call(ARGV[5], KEYS[3], back)
    end
end
local available = redis.call('get', KEYS[1])
if available ~= false and tonumber(available) >= tonumber(ARGV[1]) then
    redis.call('decrby', KEYS[1], ARGV[1])
    for i = 6, #ARGV do
        redis.call('zadd', KEYS[2], ARGV[2], ARGV[i])
    end
    local ttl = redis.call('pttl', KEYS[1])
    if ttl > 0 then
        redis.call('pexpire', KEYS[2], ttl)
    end
    return 'OK'
end
local nearest = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')
if nearest[1] ~= nil and nearest[2] ~= ARGV[4] then
    return ':' .. tostring(nearest[2])
end
return nil
