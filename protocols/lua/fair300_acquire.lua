-- fair300_acquire.lua: RedissonFairLock acquire in 3.0.x and 3.1.x, before
-- the deadline zset of 3.2.0 (2b8d524b1): a waiter's place is a key of its
-- own, "redisson_lock_thread:{<lock>}:<lockName>", whose TTL is its
-- deadline. Heads whose key has expired are popped first; the lock goes
-- to a thread when it is free and the queue is empty or headed by it.
-- Otherwise the thread joins the queue (once: while its key lives) and
-- its key gets the TTL of the head's key (the lock's PTTL for the head)
-- plus threadWaitTime, rewritten at every retry. A waiter whose key ran
-- out while it was not the head is pushed again: the list can hold it
-- twice.
-- KEYS: [1] lock hash, [2] wait queue, [3] this thread's place key.
-- ARGV: [1] lease ms, [2] lockName, [3] threadWaitTime ms.
-- Reply: nil = acquired; integer = the ttl the thread waits.
local function place(id)
    return 'redisson_lock_thread:{' .. KEYS[1] .. '}:' .. id
end
while true do
    local head = redis.call('lindex', KEYS[2], 0)
    if head == false or redis.call('exists', place(head)) == 1 then
        break
    end
    redis.call('lpop', KEYS[2])
end
if redis.call('exists', KEYS[1]) == 0 and
        (redis.call('exists', KEYS[2]) == 0 or redis.call('lindex', KEYS[2], 0) == ARGV[2]) then
    redis.call('lpop', KEYS[2])
    redis.call('del', KEYS[3])
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
local head = redis.call('lindex', KEYS[2], 0)
local ttl = redis.call('pttl', KEYS[1])
if head ~= false and head ~= ARGV[2] then
    ttl = redis.call('pttl', place(head))
end
if redis.call('exists', KEYS[3]) == 0 then
    redis.call('rpush', KEYS[2], ARGV[2])
    redis.call('set', KEYS[3], 1)
end
redis.call('pexpire', KEYS[3], ttl + tonumber(ARGV[3]))
return ttl
