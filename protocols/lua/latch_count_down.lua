-- latch_count_down.lua: RedissonCountDownLatch countDown() (PROTOCOLS.md §7).
-- KEYS: [1] the count, [2] the latch channel.
-- ARGV: [1] ZERO message (0), [2] publish command.
-- Decrements; at or below zero the key goes, and exactly at zero the ZERO
-- message is published (an absent latch goes to -1 and is deleted
-- silently). Replies nil.
local left = redis.call('decr', KEYS[1])
if left <= 0 then
    redis.call('del', KEYS[1])
end
if left == 0 then
    redis.call(ARGV[2], KEYS[2], ARGV[1])
end
