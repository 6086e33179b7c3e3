-- redsync_release.lua: go-redsync v4's delete script on one master.
-- KEYS[1] the mutex; ARGV[1] its value.
-- Returns 1 deleted, -1 already expired (no key), 0 held by another value.
local val = redis.call('get', KEYS[1])
if val == ARGV[1] then
    return redis.call('del', KEYS[1])
elseif val == false then
    return -1
end
return 0
