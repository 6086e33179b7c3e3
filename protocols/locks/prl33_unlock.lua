-- prl33_unlock.lua: python-redis-lock 3.2 .. 3.3.1 release (UNLOCK_SCRIPT
-- at v3.3.1): the signal list gets one element with no expiry and the lock
-- goes; the client then deletes the signal itself with a DEL of its own
-- (_delete_signal), so a waiter whose BLPOP arrives after that DEL finds
-- nothing (issue #71, fixed in 3.4.0 by signal_expire).
-- KEYS[1] the lock, KEYS[2] its signal list; ARGV[1] the id.
-- Reply: 0 released, 1 not ours.
if redis.call('get', KEYS[1]) ~= ARGV[1] then
    return 1
end
redis.call('del', KEYS[2])
redis.call('lpush', KEYS[2], 1)
redis.call('del', KEYS[1])
return 0
