-- fair2018_acquire.lua: RedissonFairLock acquire with queueing as it was
-- before 3.11.1 (pull request #2100, issue #2099 "timeout drift"): a
-- waiter's deadline is computed from the HEAD's deadline (or the lock's
-- PTTL when the caller is the head or the queue is empty) plus waitMs, and
-- ZADD writes it again on every retry of an already queued thread, so
-- each retry moves its deadline; a thread that leaves the queue by
-- acquiring gives no time back to the others.
-- KEYS: [1] lock hash, [2] wait queue, [3] deadlines zset.
-- ARGV: [1] lease ms, [2] lockName, [3] waitMs, [4] the client's now (ms).
-- (Redisson passed now + threadWaitTime as one argument; it is added here.)
-- Reply: nil = acquired (or re-entered); else the ms to wait.
while true do
    local head = redis.call('lindex', KEYS[2], 0)
    if head == false then
        break
    end
    local deadline = tonumber(redis.call('zscore', KEYS[3], head))
    if deadline <= tonumber(ARGV[4]) then
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
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
local first = redis.call('lindex', KEYS[2], 0)
local ttl
if first ~= false and first ~= ARGV[2] then
    ttl = tonumber(redis.call('zscore', KEYS[3], first)) - tonumber(ARGV[4])
else
    ttl = redis.call('pttl', KEYS[1])
end
local deadline = ttl + tonumber(ARGV[4]) + tonumber(ARGV[3])
if redis.call('zadd', KEYS[3], deadline, ARGV[2]) == 1 then
    redis.call('rpush', KEYS[2], ARGV[2])
end
return ttl
