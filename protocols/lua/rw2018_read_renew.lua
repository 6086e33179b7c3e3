-- rw2018_read_renew.lua: a read lock's watchdog renewal, per lock and
-- thread (3.8.1 .. 3.43: RedissonReadLock.renewExpirationAsync, 387dd9307,
-- issue #1604; replaced by the batched read task in 3.44).
-- KEYS: [1] rw hash, [2] key prefix "{name}".
-- ARGV: [1] lease ms, [2] the renewing thread's read lockName "<id>:<t>".
-- While the thread holds read, the hash and the timeout key of every hold
-- of every field (other holders' too) are set to the lease.
-- Reply 1 when the thread still held read, else 0.
if redis.call('hget', KEYS[1], ARGV[2]) == false then
    return 0
end
redis.call('pexpire', KEYS[1], ARGV[1])
if redis.call('hlen', KEYS[1]) > 1 then
    for _, field in ipairs(redis.call('hkeys', KEYS[1])) do
        local holds = tonumber(redis.call('hget', KEYS[1], field))
        if type(holds) == 'number' then
            for k = holds, 1, -1 do
                redis.call('pexpire', KEYS[2] .. ':' .. field .. ':rwlock_timeout:' .. k, ARGV[1])
            end
        end
    end
end
return 1
