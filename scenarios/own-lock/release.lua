-- release.lua: delete the lock only if it still holds my token
-- (the compare-and-delete of the redis.io distributed-lock page).
-- KEYS[1] the lock key; ARGV[1] my token. Returns 1 deleted, 0 not mine.
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
