-- psem2019_release.lua: RPermitExpirableSemaphore tryRelease(id) before
-- 3.17.0 (PROTOCOLS.md §6.3): no look at the lease, so a permit whose
-- lease had ended but that no acquire had reclaimed yet is answered
-- "released" (issue #4086, reported on 3.16.7).
-- KEYS: [1] the available count, [2] the semaphore channel, [3] the
--       timeout set.
-- ARGV: [1] the permit id, [2] 1 (permits per id).
-- An id not in the set: 0. Otherwise it leaves the set, its permit goes
-- back to the count, the new count is published: 1.
local removed = redis.call('zrem', KEYS[3], ARGV[1])
if tonumber(removed) ~= 1 then
    return 0
end
local count = redis.call('incrby', KEYS[1], ARGV[2])
redis.call('publish', KEYS[2], count)
return 1
