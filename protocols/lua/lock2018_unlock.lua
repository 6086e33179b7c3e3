-- lock2018_unlock.lua: RedissonLock unlock from 3.0.0 to 3.10.5: as
-- lock2019_unlock, but a lock that is gone (expired, force-unlocked) is
-- answered 1 after publishing the unlock message, so the caller is told
-- it released and its renewal is cancelled (fc58dd0b2, 3.10.6: "RLock.
-- unlock method returns true if lock doesn't exist", issue #2018).
-- KEYS: lock hash, channel. ARGV: unlock message (0), lease ms, lockName.
-- Reply: nil = not the owner, 0 = still held, 1 = released or gone.
if redis.call('exists', KEYS[1]) == 0 then
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
redis.call('del', KEYS[1])
redis.call('publish', KEYS[2], ARGV[1])
return 1
