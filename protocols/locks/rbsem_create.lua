-- rbsem_create.lua: Ruby redis-semaphore 0.3 (dv/redis-semaphore,
-- lib/redis/semaphore.rb at v0.3.1) exists_or_create!: GETSET of the
-- EXISTS key; when it was not set, create!: the grabbed hash and the
-- token list go, the list gets the tokens 0 .. N-1, the version key is
-- set. (The gem runs GETSET, then EXPIRE EXISTS 10 and a MULTI; here one
-- script: a client that GETSETs between them only waits in its BLPOP.)
-- KEYS[1] EXISTS, KEYS[2] GRABBED, KEYS[3] AVAILABLE, KEYS[4] VERSION;
-- ARGV[1] the resources. Reply: 1 created, 0 it existed.
if redis.call('getset', KEYS[1], '1') then
    return 0
end
redis.call('del', KEYS[2])
redis.call('del', KEYS[3])
for i = 0, tonumber(ARGV[1]) - 1 do
    redis.call('rpush', KEYS[3], i)
end
redis.call('set', KEYS[4], '1')
return 1
