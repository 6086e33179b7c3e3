-- rsem_multi_release.lua: redis-semaphore 5.x MultiSemaphore release
-- (src/multiSemaphore/release/lua.ts, v5.7.0): ZREM of our n members.
-- KEYS[1] the set; ARGV[1] n, ARGV[2] identifier.
-- Reply: the members removed (the client ignores it).
local members = {}
for i = 0, tonumber(ARGV[1]) - 1 do
    members[#members + 1] = ARGV[2] .. '_' .. i
end
return redis.call('zrem', KEYS[1], unpack(members))
