-- rw300_write_unlock.lua: RedissonWriteLock unlock from 3.0.0 to 3.2.3:
-- as the read side's (rw300_read_unlock.lua) in write mode; the last
-- hold deletes the hash and publishes (there is no downgrade to leave a
-- read hold behind).
-- KEYS: [1] rw hash, [2] rw channel. ARGV: [1] unlock message (0),
-- [2] lease ms, [3] lockName "<id>:<t>".
-- Reply: nil = not the writer, 0 = still held, 1 = released (or no lock).
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call('publish', KEYS[2], ARGV[1])
    return 1
end
if mode ~= 'write' or redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
    return nil
end
local left = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if left > 0 then
    redis.call('pexpire', KEYS[1], ARGV[2])
    return 0
end
redis.call('hdel', KEYS[1], ARGV[3])
if redis.call('hlen', KEYS[1]) == 1 then
    redis.call('del', KEYS[1])
    redis.call('publish', KEYS[2], ARGV[1])
end
return 1
