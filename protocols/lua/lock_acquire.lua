-- lock_acquire.lua: RedissonLock acquire, current form (since 3.19).
-- KEYS[1] lock hash; ARGV[1] lease ms, ARGV[2] lockName "<id>:<thread>".
-- Takes a free lock or re-enters our own (the lease restarts either way);
-- otherwise answers the holder's remaining ms (-1: held with no TTL).
if (redis.call('exists', KEYS[1]) == 0)
        or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
