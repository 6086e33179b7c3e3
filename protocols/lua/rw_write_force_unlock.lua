-- rw_write_force_unlock.lua: RedissonWriteLock forceUnlock (PROTOCOLS.md 5.2).
-- KEYS: [1] rw hash, [2] rw channel. ARGV: [1] read-unlock message (1),
-- [2] publish command. Deletes the lock when it is in write mode, whoever
-- holds it. Reply: 1 = deleted, 0 = not in write mode.
if redis.call('hget', KEYS[1], 'mode') == 'write' then
    redis.call('del', KEYS[1])
    redis.call(ARGV[2], KEYS[2], ARGV[1])
    return 1
end
return 0
