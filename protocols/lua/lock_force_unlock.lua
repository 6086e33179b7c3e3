-- lock_force_unlock.lua: RedissonLock forceUnlock: deletes the lock whoever
-- holds it and wakes one waiter. KEYS: lock hash, channel.
-- ARGV: unlock message (0), publish command. Reply 1 if a lock was deleted.
if redis.call('del', KEYS[1]) == 1 then
    redis.call(ARGV[2], KEYS[2], ARGV[1])
    return 1
end
return 0
