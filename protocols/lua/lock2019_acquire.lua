-- lock2019_acquire.lua: RedissonLock acquire as in 3.11 (2019): three
-- branches with the same end state as the current script.
-- KEYS[1] lock hash; ARGV[1] lease ms, ARGV[2] lockName.
if redis.call('exists', KEYS[1]) == 0 then
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
