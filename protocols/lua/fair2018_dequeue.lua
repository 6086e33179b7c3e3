-- fair2018_dequeue.lua: RedissonFairLock acquireFailed before 3.11.1 (pull
-- request #2100 added giving waitMs back to the threads behind): a waiter
-- that gives up leaves the queue and its deadline; nobody else's moves.
-- KEYS: [1] wait queue, [2] deadlines zset. ARGV: [1] lockName, [2] waitMs
-- (unused here). Reply: nil.
redis.call('zrem', KEYS[2], ARGV[1])
redis.call('lrem', KEYS[1], 0, ARGV[1])
