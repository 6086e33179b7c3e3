-- fair_unlock.lua: RedissonFairLock unlock, current form (since 3.24), with
-- the unlock latch. The message goes only to the head waiter's channel.
-- KEYS: [1] lock hash, [2] wait queue, [3] deadlines zset, [4] channel
--       prefix (the head's lockName is appended after ':'), [5] latch key.
-- ARGV: [1] unlock message (0), [2] lease ms to restore while still held,
--       [3] lockName, [4] the client's now (ms), [5] publish command,
--       [6] latch TTL ms.
-- Reply: nil = not the owner, 0 = still held, 1 = free (also when the lock
-- had already expired: no error for an unlock after the lease).
local earlier = redis.call('get', KEYS[5])
if earlier ~= false then
    return tonumber(earlier)
end
while true do
    local head = redis.call('lindex', KEYS[2], 0)
    if head == false then
        break
    end
    local deadline = redis.call('zscore', KEYS[3], head)
    if deadline == false or tonumber(deadline) > tonumber(ARGV[4]) then
        break
    end
    redis.call('zrem', KEYS[3], head)
    redis.call('lpop', KEYS[2])
end
if redis.call('exists', KEYS[1]) == 0 then
    local head = redis.call('lindex', KEYS[2], 0)
    if head ~= false then
        redis.call(ARGV[5], KEYS[4] .. ':' .. head, ARGV[1])
    end
    redis.call('set', KEYS[5], 1, 'px', ARGV[6])
    return 1
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
    return nil
end
local left = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if left > 0 then
    redis.call('pexpire', KEYS[1], ARGV[2])
    redis.call('set', KEYS[5], 0, 'px', ARGV[6])
    return 0
end
redis.call('del', KEYS[1])
redis.call('set', KEYS[5], 1, 'px', ARGV[6])
local head = redis.call('lindex', KEYS[2], 0)
if head ~= false then
    redis.call(ARGV[5], KEYS[4] .. ':' .. head, ARGV[1])
end
return 1
