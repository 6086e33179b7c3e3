-- prl_extend.lua: python-redis-lock extend (EXTEND_SCRIPT, v3.3.1 and
-- v4.0.1; 3.3 passes the expiry first): while the lock holds our id and
-- has a TTL, EXPIRE it again. KEYS[1] the lock, KEYS[2] its signal (not
-- read); ARGV[1] the id, ARGV[2] the expiry (s).
-- Reply: 0 extended, 1 not ours (NotAcquired), 2 no expiry (NotExpirable).
if redis.call('get', KEYS[1]) ~= ARGV[1] then
    return 1
elseif redis.call('ttl', KEYS[1]) < 0 then
    return 2
end
redis.call('expire', KEYS[1], ARGV[2])
return 0
