-- lock2019_force_unlock.lua: forceUnlock as in 3.11 (literal publish).
-- KEYS: lock hash, channel; ARGV[1] unlock message. Reply 1 if deleted.
if redis.call('del', KEYS[1]) == 1 then
    redis.call('publish', KEYS[2], ARGV[1])
    return 1
end
return 0
