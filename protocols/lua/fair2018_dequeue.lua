-- fair2018_dequeue.lua: RedissonFairLock acquireFailed from 3.2.4 (1b9ec19cb,
-- issue #757) to 3.5.4: a waiter that gives up leaves the queue and its
-- deadline; nobody else's moves (3.5.5: fair2017_dequeue, the head's leave
-- takes time off every deadline; 3.11.1, pull request #2100: fair_dequeue).
-- KEYS: [1] wait queue, [2] deadlines zset. ARGV: [1] lockName, [2] waitMs
-- (unused here). Reply: nil.
redis.call('zrem', KEYS[2], ARGV[1])
redis.call('lrem', KEYS[1], 0, ARGV[1])
