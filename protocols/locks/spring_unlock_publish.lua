-- spring_unlock_publish.lua: RedisLockRegistry's PUB_SUB_LOCK unlock: the
-- key goes only if it is the client's, and waiters are told on the
-- registry's channel (the message is the lock key).
-- KEYS[1] the lock key; ARGV[1] the client id; ARGV[2] the channel.
-- Returns true (1) when removed, false (nil) when not the client's.
if redis.call('get', KEYS[1]) == ARGV[1] and redis.call('unlink', KEYS[1]) == 1 then
    redis.call('publish', ARGV[2], KEYS[1])
    return true
end
return false
