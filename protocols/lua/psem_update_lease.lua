-- psem_update_lease.lua: RPermitExpirableSemaphore updateLeaseTime(id,
-- lease) (PROTOCOLS.md §6.3).
-- KEYS: [1] the available count, [2] the timeout set, [3] the channel.
-- ARGV: [1] the permit id, [2] its new deadline (client ms; 922337203685477:
--       no lease), [3] the client's now (ms), [4] publish command.
-- Every permit whose deadline has passed comes back first (published when
-- positive), the id's included; then an id still held gets the new
-- deadline: 1, else 0.
local expired = redis.call('zrangebyscore', KEYS[2], 0, ARGV[3], 'limit', 0, -1)
if #expired > 0 then
    redis.call('zrem', KEYS[2], unpack(expired))
    local count = redis.call('incrby', KEYS[1], #expired)
    if tonumber(count) > 0 then
        redis.call(ARGV[4], KEYS[3], count)
    end
end
if redis.call('zscore', KEYS[2], ARGV[1]) ~= false then
    redis.call('zadd', KEYS[2], ARGV[2], ARGV[1])
    return 1
end
return 0
