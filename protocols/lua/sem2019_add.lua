-- sem2019_add.lua: RedissonSemaphore addPermits(n) as 3.12.0 .. 3.16.1 had
-- it (PROTOCOLS.md §6.1; the publish came in 3.16.2, CHANGELOG "threads
-- waiting for RSemaphore permits acquisition unable to acquire them if
-- permits added").
-- KEYS: [1] the permit count, [2] the semaphore channel (unused).
-- ARGV: [1] n (may be negative), [2] publish command (unused).
-- count = (GET or 0) + n, written back with SET; nothing is published, so
-- no waiter hears of the new permits. Replies nil.
local current = redis.call('get', KEYS[1])
if current == false then
    current = 0
end
redis.call('set', KEYS[1], tonumber(current) + tonumber(ARGV[1]))
