-- fair2017_dequeue.lua: RedissonFairLock acquireFailed from 3.5.5 to
-- 3.11.0 (3c63f97f2, issue #1104): a waiter that gives up while it is the
-- queue's head takes threadWaitTime off every deadline in the zset (its
-- own included, which it then removes); one further back changes nobody's.
-- It then leaves the queue and the zset. 3.11.1 (pull request #2100)
-- gives waitMs back to the waiters behind the leaver instead.
-- KEYS: [1] wait queue, [2] deadlines zset. ARGV: [1] lockName,
-- [2] threadWaitTime. Reply: nil.
if redis.call('lindex', KEYS[1], 0) == ARGV[1] then
    for _, waiter in ipairs(redis.call('zrange', KEYS[2], 0, -1)) do
        redis.call('zincrby', KEYS[2], -tonumber(ARGV[2]), waiter)
    end
end
redis.call('zrem', KEYS[2], ARGV[1])
redis.call('lrem', KEYS[1], 0, ARGV[1])
