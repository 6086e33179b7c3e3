-- sem_add.lua: RedissonSemaphore addPermits(n) (PROTOCOLS.md §6.1).
-- KEYS: [1] the permit count, [2] the semaphore channel.
-- ARGV: [1] n (may be negative), [2] publish command.
-- count = (GET or 0) + n, written back with SET and published. Replies nil.
local current = redis.call('get', KEYS[1])
if current == false then
    current = 0
end
local count = tonumber(current) + tonumber(ARGV[1])
redis.call('set', KEYS[1], count)
redis.call(ARGV[2], KEYS[2], count)
