-- fair300_unlock.lua: RedissonFairLock unlock() in 3.0.x and 3.1.x. Its
-- purge of expired heads reads the channel's name where the queue's
-- should be (KEYS[2], not KEYS[3]): it never pops anything, so the unlock
-- message goes to the head even when that waiter is long gone. A lock
-- that is gone answers 1 after waking the head. (unlockAsync() was not
-- overridden: it runs the plain lock's script on the plain channel, which
-- no fair waiter listens to; 3.2.0 fixed both, 2b8d524b1.)
-- KEYS: [1] lock hash, [2] lock channel, [3] wait queue.
-- ARGV: [1] unlock message (0), [2] lease ms, [3] lockName.
-- Reply: nil = not the owner, 0 = still held, 1 = released (or no lock).
local function wake_head()
    local head = redis.call('lindex', KEYS[3], 0)
    if head ~= false then
        redis.call('publish', KEYS[2] .. ':' .. head, ARGV[1])
    end
end
if redis.call('exists', KEYS[1]) == 0 then
    wake_head()
    return 1
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
    return nil
end
local left = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if left > 0 then
    redis.call('pexpire', KEYS[1], ARGV[2])
    return 0
end
redis.call('del', KEYS[1])
wake_head()
return 1
