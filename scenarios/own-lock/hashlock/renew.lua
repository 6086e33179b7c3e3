-- renew.lua: push the lease out again while the lock is mine.
-- KEYS[1] the lock key; ARGV[1] my owner field; ARGV[2] the lease in ms.
-- Returns 1 renewed, 0 not mine.
if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
    return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
