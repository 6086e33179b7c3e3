-- sem_release.lua: RedissonSemaphore release(n) (PROTOCOLS.md §6.1).
-- KEYS: [1] the permit count, [2] the semaphore channel.
-- ARGV: [1] n, [2] publish command.
-- Adds n permits with no upper bound (the key is created if absent; anyone
-- may release) and publishes the new count. Replies nil.
local count = redis.call('incrby', KEYS[1], ARGV[1])
redis.call(ARGV[2], KEYS[2], count)
