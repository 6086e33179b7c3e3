-- cad_extend.lua: baseline B renewal, compare-and-extend.
-- KEYS[1] lock key; ARGV[1] token, ARGV[2] lease ms.
-- Reply: PEXPIRE's reply when the key holds our token, else 0.
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
