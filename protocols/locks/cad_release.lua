-- cad_release.lua: compare-and-delete, the release most Redis locks use.
-- KEYS[1] the lock key; ARGV[1] the owner's token.
-- Returns 1 when the key held the token and is gone, 0 when it was not
-- (no longer) the owner's.
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
