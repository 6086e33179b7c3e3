-- acquire.lua: take the lock, or take it once more when it is already
-- mine (re-entry); the hash field of the owner counts the levels.
-- KEYS[1] the lock key; ARGV[1] my owner field; ARGV[2] the lease in ms.
-- Returns nil when taken, else the holder's remaining ms (PTTL).
local free = redis.call('exists', KEYS[1]) == 0
if free or redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[1], 1)
    redis.call('pexpire', KEYS[1], ARGV[2])
    return nil
end
return redis.call('pttl', KEYS[1])
