-- psem_release.lua: RPermitExpirableSemaphore tryRelease(id) since 3.17.0
-- (PROTOCOLS.md §6.3; the expiry test: issue #4086, PR #4091).
-- KEYS: [1] the available count, [2] the semaphore channel, [3] the
--       timeout set.
-- ARGV: [1] the permit id, [2] 1 (permits per id), [3] the client's now
--       (ms), [4] publish command.
-- An id not in the set: 0, nothing changes. Otherwise it leaves the set,
-- its permit goes back to the count (published), and the reply says
-- whether its lease was still running: 1, or 0 when it had ended (the
-- permit is returned all the same; release() then throws).
local deadline = redis.call('zscore', KEYS[3], ARGV[1])
local removed = redis.call('zrem', KEYS[3], ARGV[1])
if tonumber(removed) ~= 1 then
    return 0
end
local count = redis.call('incrby', KEYS[1], ARGV[2])
redis.call(ARGV[4], KEYS[2], count)
if tonumber(deadline) <= tonumber(ARGV[3]) then
    return 0
end
return 1
