-- fair300_force_unlock.lua: RedissonFairLock forceUnlock in 3.0.x: as
-- its unlock, no expired head is popped (the purge reads the channel's
-- name), so the head woken may be long gone (93d4c8ee2, 3.1.0, fixed the
-- key order: fair310_force_unlock.lua).
-- KEYS: [1] lock hash, [2] wait queue, [3] lock channel (3.0.x passed
-- the channel second; the client here passes 3.1.x's order to both).
-- ARGV: [1] unlock message (0). Reply: 1 = deleted, 0 = there was no lock.
if redis.call('del', KEYS[1]) == 1 then
    local head = redis.call('lindex', KEYS[2], 0)
    if head ~= false then
        redis.call('publish', KEYS[3] .. ':' .. head, ARGV[1])
    end
    return 1
end
return 0
