-- psem2019_acquire.lua: RPermitExpirableSemaphore tryAcquire(lease) as
-- Redisson 3.11 .. 3.23.3 runs it (PROTOCOLS.md §6.3): one permit id per
-- call, the publish command written in.
-- KEYS: [1] the available count, [2] the timeout set {name}:timeout,
--       [3] the semaphore channel.
-- ARGV: [1] n (1: the API asks for one), [2] the deadline (client ms;
--       922337203685477: no lease), [3] the permit id, [4] the client's
--       now (ms), [5] the no-lease score.
-- Up to n expired permits come back first (published when positive);
-- then with n available: take them, give the id the deadline, reply the
-- id. Otherwise ":" .. the nearest deadline with a lease, else nil.
local expired = redis.call('zrangebyscore', KEYS[2], 0, ARGV[4], 'limit', 0, ARGV[1])
if #expired > 0 then
    redis.call('zrem', KEYS[2], unpack(expired))
    local back = redis.call('incrby', KEYS[1], #expired)
    if tonumber(back) > 0 then
        redis.call('publish', KEYS[3], back)
    end
end
local available = redis.call('get', KEYS[1])
if available ~= false and tonumber(available) >= tonumber(ARGV[1]) then
    redis.call('decrby', KEYS[1], ARGV[1])
    redis.call('zadd', KEYS[2], ARGV[2], ARGV[3])
    return ARGV[3]
end
local nearest = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')
if nearest[1] ~= nil and nearest[2] ~= ARGV[5] then
    return ':' .. tostring(nearest[2])
end
return nil
