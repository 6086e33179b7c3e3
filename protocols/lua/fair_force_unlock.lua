-- fair_force_unlock.lua: RedissonFairLock forceUnlock: purges expired
-- waiters, deletes the lock whoever holds it and wakes the head waiter.
-- KEYS: [1] lock hash, [2] wait queue, [3] deadlines zset, [4] channel
--       prefix (the head's lockName is appended after ':').
-- ARGV: [1] unlock message (0), [2] the client's now (ms), [3] publish
--       command. Reply 1 if a lock was deleted, else 0.
while true do
    local head = redis.call('lindex', KEYS[2], 0)
    if head == false then
        break
    end
    local deadline = redis.call('zscore', KEYS[3], head)
    if deadline == false or tonumber(deadline) > tonumber(ARGV[2]) then
        break
    end
    redis.call('zrem', KEYS[3], head)
    redis.call('lpop', KEYS[2])
end
if redis.call('del', KEYS[1]) == 1 then
    local head = redis.call('lindex', KEYS[2], 0)
    if head ~= false then
        redis.call(ARGV[3], KEYS[4] .. ':' .. head, ARGV[1])
    end
    return 1
end
return 0
