-- release.lua: give one level back; the last one deletes the lock.
-- KEYS[1] the lock key; ARGV[1] my owner field; ARGV[2] the lease in ms.
-- Returns nil when the lock is not mine, 0 when levels are left (the
-- lease pushed out again), 1 when the lock is deleted.
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
    return nil
end
if redis.call('hincrby', KEYS[1], ARGV[1], -1) > 0 then
    redis.call('pexpire', KEYS[1], ARGV[2])
    return 0
end
redis.call('del', KEYS[1])
return 1
