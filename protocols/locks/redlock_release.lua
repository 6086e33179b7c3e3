-- redlock_release.lua: node-redlock v5's release on one master: every key
-- that still holds the token is deleted.
-- KEYS the resources; ARGV[1] the token.
-- Returns how many keys were deleted.
local count = 0
for _, key in ipairs(KEYS) do
    if redis.call('get', key) == ARGV[1] then
        if redis.pcall('del', key) == 1 then
            count = count + 1
        end
    end
end
return count
