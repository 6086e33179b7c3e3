-- spin_force_unlock.lua: RedissonSpinLock forceUnlock: deletes the lock,
-- no message. KEYS[1] lock hash. 1: it was held; 0: it was free.
if redis.call('del', KEYS[1]) == 1 then
    return 1
end
return 0
