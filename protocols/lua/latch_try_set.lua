-- latch_try_set.lua: RedissonCountDownLatch trySetCount(c) (PROTOCOLS.md §7).
-- KEYS: [1] the count, [2] the latch channel.
-- ARGV: [1] NEW_COUNT message (1), [2] c, [3] publish command.
-- Sets the count only when the key is absent and publishes NEW_COUNT: 1;
-- else 0.
if redis.call('exists', KEYS[1]) == 1 then
    return 0
end
redis.call('set', KEYS[1], ARGV[2])
redis.call(ARGV[3], KEYS[2], ARGV[1])
return 1
