-- lock_renew_batch.lua: batched watchdog renewal (since 3.44): one call
-- renews every lock name a process holds. KEYS: lock hashes n1..nk;
-- ARGV[1] lease ms, ARGV[1+i] the lockName to check for KEYS[i].
-- Reply: array r, r[i] = 1 if KEYS[i] was ours and extended, else 0.
local renewed = {}
for i = 1, #KEYS do
    if redis.call('hexists', KEYS[i], ARGV[i + 1]) == 1 then
        redis.call('pexpire', KEYS[i], ARGV[1])
        renewed[i] = 1
    else
        renewed[i] = 0
    end
end
return renewed
