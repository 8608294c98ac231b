/*
 * dl_scripts — the Lua scripts run on Redis, with their SHA1 digests.
 *
 * Keys and tokens reach the scripts only through KEYS/ARGV, never spliced
 * into the text (RELIABILITY.md item 15), so a token with quotes, "]]" or NUL
 * is plain data. The digests are sha1 of the exact text; they are used with
 * EVALSHA, falling back to EVAL on NOSCRIPT (after SCRIPT FLUSH or a
 * failover), which also caches the script again. A wrong digest would show
 * as an EVAL on every call: tests/phpt checks `cmdstat_eval` stays flat.
 *
 * Regenerate a digest with: printf '%s' "<script>" | sha1sum
 */
#ifndef DL_SCRIPTS_H
#define DL_SCRIPTS_H

/* Compare-and-delete. KEYS[1] lock key, ARGV[1] token. Returns 1 if deleted, 0 if not ours. */
#define DL_SCRIPT_RELEASE \
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"
#define DL_SCRIPT_RELEASE_SHA "6fbe84d1140fd2047394924af9d845b83c070bec"

/* Compare-and-PEXPIRE. ARGV[2] new ttl in ms. Returns 1 if extended, 0 if not ours. */
#define DL_SCRIPT_REFRESH \
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0"
#define DL_SCRIPT_REFRESH_SHA "e50f848e374a94192aa6f2e444e7eb8acc16501d"

/* Ownership and lease left. Returns the PTTL in ms if ours, -3 if not. */
#define DL_SCRIPT_STATUS \
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PTTL', KEYS[1]) end return -3"
#define DL_SCRIPT_STATUS_SHA "d6aad9dffb2e64c549ac4c8ed9a16d6cbb64aff9"

/*
 * Acquire with a fencing token. KEYS[1] lock key, KEYS[2] fencing counter (same
 * slot); ARGV[1] token, ARGV[2] ttl ms, ARGV[3] "1" to fence. Returns {1, fence}
 * when granted (fence 0 without fencing), {0, holder's PTTL} when not. The
 * counter has no TTL: it must outlive every lease to stay monotonic.
 */
#define DL_SCRIPT_ACQUIRE \
    "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then if ARGV[3] == '1' then " \
    "return {1, redis.call('INCR', KEYS[2])} end return {1, 0} end return {0, redis.call('PTTL', KEYS[1])}"
#define DL_SCRIPT_ACQUIRE_SHA "5d7f602bd397e551159647aac1c12e325b9f96c7"

#endif
