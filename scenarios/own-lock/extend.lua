-- extend.lua: push the lease out again, only while the lock is mine.
-- KEYS[1] the lock key; ARGV[1] my token; ARGV[2] the lease in ms.
-- Returns 1 extended, 0 not mine.
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
