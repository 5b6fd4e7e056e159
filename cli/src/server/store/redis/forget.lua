-- ARGV[3] session. Returns 1 when it existed.
return forget(ARGV[3])
