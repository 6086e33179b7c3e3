-- psem_available.lua: RPermitExpirableSemaphore availablePermits()
-- (PROTOCOLS.md §6.3).
-- KEYS: [1] the available count, [2] the timeout set, [3] the channel.
-- ARGV: [1] the client's now (ms), [2] publish command.
-- Every permit whose deadline has passed comes back to the count first
-- (published when positive: the new count is the reply); otherwise replies
-- the count (0 when absent).
local expired = redis.call('zrangebyscore', KEYS[2], 0, ARGV[1], 'limit', 0, -1)
if #expired > 0 then
    redis.call('zrem', KEYS[2], unpack(expired))
    local count = redis.call('incrby', KEYS[1], #expired)
    if tonumber(count) > 0 then
        redis.call(ARGV[2], KEYS[3], count)
    end
    return count
end
local count = redis.call('get', KEYS[1])
if count == false then
    return 0
end
return count
