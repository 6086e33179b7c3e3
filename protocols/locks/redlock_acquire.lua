-- redlock_acquire.lua: node-redlock v5's acquire on one master. Every key
-- must be absent (it tests EXISTS, not the value: a key the same client
-- set in an earlier attempt also says no); then each is set with the
-- token and the duration.
-- KEYS the resources; ARGV[1] the token; ARGV[2] the duration in ms.
-- Returns the number of keys set, 0 when one existed.
for _, key in ipairs(KEYS) do
    if redis.call('exists', key) == 1 then
        return 0
    end
end
for _, key in ipairs(KEYS) do
    redis.call('set', key, ARGV[1], 'PX', ARGV[2])
end
return #KEYS
