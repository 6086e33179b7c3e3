-- prl_unlock.lua: python-redis-lock 3.4 .. 4.0 release (UNLOCK_SCRIPT,
-- src/redis_lock/__init__.py at v4.0.1): when the lock still holds our
-- id, the signal list is replaced by one element that lives signal_expire
-- ms (a waiter whose BLPOP comes within that time still finds it), and
-- the lock goes. KEYS[1] the lock, KEYS[2] its signal list; ARGV[1] the
-- id, ARGV[2] signal_expire (ms). Reply: 0 released, 1 not ours.
if redis.call('get', KEYS[1]) ~= ARGV[1] then
    return 1
end
redis.call('del', KEYS[2])
redis.call('lpush', KEYS[2], 1)
redis.call('pexpire', KEYS[2], ARGV[2])
redis.call('del', KEYS[1])
return 0
