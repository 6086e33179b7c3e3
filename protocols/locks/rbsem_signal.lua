-- rbsem_signal.lua: Ruby redis-semaphore 0.3 signal(token) (v0.3.1): in one
-- MULTI, HDEL of the token from the grabbed hash and LPUSH of it back on
-- the token list (here one script, atomic as the MULTI is).
-- KEYS[1] GRABBED, KEYS[2] AVAILABLE; ARGV[1] the token.
-- Reply: the token list's length.
redis.call('hdel', KEYS[1], ARGV[1])
return redis.call('lpush', KEYS[2], ARGV[1])
