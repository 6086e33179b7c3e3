-- spring_unlock.lua: RedisLockRegistry's atomic unlock (since the fix of
-- spring-integration #8699): the key goes only if it is the client's.
-- KEYS[1] the lock key; ARGV[1] the client id.
-- Returns true (1) when removed, false (nil) when the lock was not the
-- client's any more (ConcurrentModificationException).
if redis.call('get', KEYS[1]) == ARGV[1] then
    redis.call('unlink', KEYS[1])
    return true
end
return false
