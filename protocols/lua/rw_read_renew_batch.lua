-- rw_read_renew_batch.lua: batched read-lock watchdog renewal (since 3.44,
-- PROTOCOLS.md 5.2 READ_RENEW_BATCH). KEYS: pairs (rw hash, key prefix
-- "{name}"). ARGV: [1] lease ms, then per pair a count c followed by c
-- read lockNames (this process's threads that hold read on it).
-- Each listed thread still in the hash gets all its timeout keys renewed;
-- a hash with one live listed thread is renewed too.
-- Reply: array r, r[j] = 1 if pair j had a listed holder, else 0.
local renewed = {}
local a = 2
for j = 1, #KEYS, 2 do
    local alive = false
    local count = tonumber(ARGV[a])
    a = a + 1
    for _ = 1, count do
        local holds = redis.call('hget', KEYS[j], ARGV[a])
        if holds ~= false then
            alive = true
            for k = tonumber(holds), 1, -1 do
                redis.call('pexpire', KEYS[j + 1] .. ':' .. ARGV[a] .. ':rwlock_timeout:' .. k, ARGV[1])
            end
        end
        a = a + 1
    end
    if alive then
        redis.call('pexpire', KEYS[j], ARGV[1])
        renewed[#renewed + 1] = 1
    else
        renewed[#renewed + 1] = 0
    end
end
return renewed
