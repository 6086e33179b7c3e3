-- cad_release.lua: baseline B release, compare-and-delete (redis.io).
-- KEYS[1] lock key; ARGV[1] the token of this acquisition.
-- Reply 1 if the key held our token and was deleted, else 0.
if redis.call('get', KEYS[1]) == ARGV[1] then
    redis.call('del', KEYS[1])
    return 1
end
return 0
