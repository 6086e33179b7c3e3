-- psem_add.lua: RPermitExpirableSemaphore addPermits(n) (PROTOCOLS.md
-- §6.3), as 4.7 runs it.
-- KEYS: [1] the available count, [2] the semaphore channel.
-- ARGV: [1] n (may be negative), [2] publish command.
-- count = (GET or 0) + n; n itself is published, and only when it is
-- positive (not the new count, unlike RSemaphore's). Replies nil.
local current = redis.call('get', KEYS[1])
if current == false then
    current = 0
end
redis.call('set', KEYS[1], tonumber(current) + tonumber(ARGV[1]))
if tonumber(ARGV[1]) > 0 then
    redis.call(ARGV[2], KEYS[2], ARGV[1])
end
