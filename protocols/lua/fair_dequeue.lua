-- fair_dequeue.lua: RedissonFairLock acquireFailed (FAIR_DEQUEUE): a waiter
-- that gives up leaves the queue, and everyone behind it gets its waitMs
-- back (their deadlines move earlier). Idempotent on replay.
-- KEYS: [1] wait queue, [2] deadlines zset.
-- ARGV: [1] lockName, [2] waitMs. Reply: nil.
local queue = redis.call('lrange', KEYS[1], 0, -1)
local i = 1
while i <= #queue and queue[i] ~= ARGV[1] do
    i = i + 1
end
i = i + 1
while i <= #queue do
    redis.call('zincrby', KEYS[2], -tonumber(ARGV[2]), queue[i])
    i = i + 1
end
redis.call('zrem', KEYS[2], ARGV[1])
redis.call('lrem', KEYS[1], 0, ARGV[1])
