-- fair331_acquire.lua: RedissonFairLock acquire in 3.31.x: the purge
-- stops at a head missing from the deadlines (703f6f57b, issue #4153:
-- before, fair2019_acquire.lua compares nil and fails with a script
-- error), the rest as before 3.32: an already queued thread is answered
-- with its predecessor's deadline minus now, and the last waiter's
-- deadline is read without a guard (a missing one fails the script).
-- KEYS: [1] lock hash, [2] wait queue, [3] deadlines zset.
-- ARGV: [1] lease ms, [2] lockName, [3] waitMs, [4] the client's now (ms).
-- Reply: nil = acquired (or re-entered); else the ms to wait.
while true do
    local head = redis.call('lindex', KEYS[2], 0)
    if head == false then
        break
    end
    local deadline = redis.call('zscore', KEYS[3], head)
    if deadline ~= false and tonumber(deadline) <= tonumber(ARGV[4]) then
        redis.call('zrem', KEYS[3], head)
        redis.call('lpop', KEYS[2])
    else
        break
    end
end
if (redis.call('exists', KEYS[1]) == 0)
        and ((redis.call('exists', KEYS[2]) == 0)
            or (redis.call('lindex', KEYS[2], 0) == ARGV[2])) then
    redis.call('lpop', KEYS[2])
    redis.call('zrem', KEYS[3], ARGV[2])
    local waiters = redis.call('zrange', KEYS[3], 0, -1)
    for i = 1, #waiters, 1 do
        redis.call('zincrby', KEYS[3], -tonumber(ARGV[3]), waiters[i])
    end
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
local mine = redis.call('zscore', KEYS[3], ARGV[2])
if mine ~= false then
    return mine - tonumber(ARGV[3]) - tonumber(ARGV[4])
end
local ttl
local last = redis.call('lindex', KEYS[2], -1)
if last ~= false and last ~= ARGV[2] then
    ttl = tonumber(redis.call('zscore', KEYS[3], last)) - tonumber(ARGV[4])
else
    ttl = redis.call('pttl', KEYS[1])
end
local deadline = ttl + tonumber(ARGV[3]) + tonumber(ARGV[4])
if redis.call('zadd', KEYS[3], deadline, ARGV[2]) == 1 then
    redis.call('rpush', KEYS[2], ARGV[2])
end
return ttl
