-- psem_release_many.lua: RPermitExpirableSemaphore tryRelease(ids) as
-- 3.23.4 .. 4.7 runs it for an acquire of several permits (PROTOCOLS.md
-- §6.3).
-- KEYS: [1] the available count, [2] the semaphore channel, [3] the
--       timeout set.
-- ARGV: [1] the number of ids, [2] the client's now (ms), [3] publish
--       command, [4..] the ids.
-- Every expired permit comes back first (published when positive); then
-- the ids still in the set leave it, their permits go back and the number
-- of them is published (not the new count: a waiter's entry adds at most
-- that many latch permits). Replies how many were released (0: none).
local expired = redis.call('zrangebyscore', KEYS[3], 0, ARGV[2], 'limit', 0, -1)
if #expired > 0 then
    redis.call('zrem', KEYS[3], unpack(expired))
    local back = redis.call('incrby', KEYS[1], #expired)
    if tonumber(back) > 0 then
        redis.call(ARGV[3], KEYS[2], back)
    end
end
local ids = {}
for i = 4, #ARGV do
    table.insert(ids, ARGV[i])
end
local removed = redis.call('zrem', KEYS[3], unpack(ids))
if tonumber(removed) == 0 then
    return 0
end
redis.call('incrby', KEYS[1], removed)
redis.call(ARGV[3], KEYS[2], removed)
return removed
