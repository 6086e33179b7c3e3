-- lock_renew.lua: watchdog renewal of one lock (V2019 .. 3.43).
-- KEYS[1] lock hash; ARGV[1] lease ms, ARGV[2] lockName.
-- Reply 1 when the lock is still ours and was extended, else 0.
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('pexpire', KEYS[1], ARGV[1])
    return 1
end
return 0
