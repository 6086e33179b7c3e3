-- spring_obtain.lua: RedisLockRegistry's obtain script. The registry's
-- client id re-takes (and refreshes) its own key; a missing key is set
-- with the expiry; a key of another client is left alone.
-- KEYS[1] the lock key; ARGV[1] the client id; ARGV[2] expireAfter in ms.
-- Returns true (1) when the lock is the client's now, false (nil) when not.
local holder = redis.call('get', KEYS[1])
if holder == ARGV[1] then
    redis.call('pexpire', KEYS[1], ARGV[2])
    return true
elseif not holder then
    redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
    return true
end
return false
