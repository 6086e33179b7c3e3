-- fenced_acquire_token.lua: RedissonFencedLock acquire with a token (3.19+).
-- KEYS[1] lock hash, KEYS[2] token counter "redisson_lock_token:{name}";
-- ARGV[1] lease ms, ARGV[2] lockName "<id>:<thread>".
-- As the reentrant acquire, and every acquisition (reentries included)
-- draws the next token: {-1, token}. Held by another: {pttl, -1}.
if (redis.call('exists', KEYS[1]) == 0)
        or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    local token = redis.call('incr', KEYS[2])
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return {-1, token}
end
return {redis.call('pttl', KEYS[1]), -1}
