-- spin_acquire.lua: RedissonSpinLock acquire (3.15+): the two-branch form,
-- HINCRBY in both branches. KEYS[1] lock hash; ARGV[1] lease ms,
-- ARGV[2] lockName "<id>:<thread>". nil: acquired (or re-entered);
-- otherwise the holder's remaining ms.
if redis.call('exists', KEYS[1]) == 0 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
