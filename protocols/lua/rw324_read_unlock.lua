-- rw324_read_unlock.lua: RedissonReadLock unlock from 3.2.4 to 3.3.1: as
-- rw300_read_unlock.lua without its test of the mode, so a downgraded
-- writer's read unlock in write mode also runs: its read count drops, and
-- with its read gone the write field keeps the hash (hlen 2) and the
-- answer is 1, which cancels the lock's renewal in the client.
-- KEYS: [1] rw hash, [2] rw channel. ARGV: [1] unlock message (0),
-- [2] lease ms, [3] read lockName "<id>:<t>".
-- Reply: nil = not a reader, 0 = still held, 1 = released (or no lock).
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call('publish', KEYS[2], ARGV[1])
    return 1
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
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
