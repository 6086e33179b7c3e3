-- latch_delete.lua: RedissonCountDownLatch delete() (PROTOCOLS.md §7).
-- KEYS: [1] the count, [2] the latch channel.
-- ARGV: [1] NEW_COUNT message (1), [2] publish command.
-- Deletes the count and publishes NEW_COUNT if it existed: 1; else 0.
if redis.call('del', KEYS[1]) == 1 then
    redis.call(ARGV[2], KEYS[2], ARGV[1])
    return 1
end
return 0
