-- fair310_force_unlock.lua: RedissonFairLock forceUnlock in 3.1.x
-- (93d4c8ee2, "RFairLock.forceUnlock doesn't clean stale queued
-- threads"): heads whose place key has expired are popped, then the lock
-- is deleted and the live head woken.
-- KEYS: [1] lock hash, [2] wait queue, [3] lock channel.
-- ARGV: [1] unlock message (0). Reply: 1 = deleted, 0 = there was no lock.
while true do
    local head = redis.call('lindex', KEYS[2], 0)
    if head == false or redis.call('exists', 'redisson_lock_thread:{' .. KEYS[1] .. '}:' .. head) == 1 then
        break
    end
    redis.call('lpop', KEYS[2])
end
if redis.call('del', KEYS[1]) == 1 then
    local head = redis.call('lindex', KEYS[2], 0)
    if head ~= false then
        redis.call('publish', KEYS[3] .. ':' .. head, ARGV[1])
    end
    return 1
end
return 0
