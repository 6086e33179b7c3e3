-- rw_read_force_unlock.lua: RedissonReadLock forceUnlock (PROTOCOLS.md 5.2).
-- KEYS: [1] rw hash, [2] rw channel. ARGV: [1] unlock message (0),
-- [2] publish command. Deletes the lock when it is in read mode, whoever
-- holds it. Reply: 1 = deleted, 0 = not in read mode.
if redis.call('hget', KEYS[1], 'mode') == 'read' then
    redis.call('del', KEYS[1])
    redis.call(ARGV[2], KEYS[2], ARGV[1])
    return 1
end
return 0
