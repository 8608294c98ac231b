/*
 * dl_scripts — the Lua scripts run on Redis, with their SHA1 digests.
 *
 * Keys and tokens reach the scripts only through KEYS/ARGV, never spliced
 * into the text (RELIABILITY.md item 15), so a token with quotes, "]]" or NUL
 * is plain data. Every key a script touches is in KEYS or derived from one by
 * dl_key (same Cluster slot). Scripts are run with EVALSHA, falling back to
 * EVAL on NOSCRIPT (after SCRIPT FLUSH or a failover), which caches them again.
 * The digests are sha1 of the exact text; tests/unit/test_conn.c checks each
 * against SCRIPT LOAD. Server time (TIME) is used only to age waiter entries;
 * Redis 7 replicates script effects, so TIME is allowed in scripts that write.
 *
 * Keys of a lock K (see dl_lock.h): F the fencing counter of K's slot (FN the
 * name's own counter of earlier releases: DL_LUA_FENCE), W wake list, Q waiters
 * (default mode: ZSET token -> expiry ms), FQ fair queue (ZSET token -> arrival
 * µs), FA fair liveness (HASH token -> "expiry_ms:ttl_ms:fence_flag"), and a
 * fair waiter's own wake list (<wake prefix><token>).
 *
 * One name, one kind. K exists whenever anyone holds the name, and its value
 * tells the kind (docs/primitives.md, "One name, one kind"):
 *   a mutex (and a multi-lock member)  STRING, the owner token itself;
 *   readers-writer                     STRING "\0W" .. writer's token, or "\0R"
 *                                      while only shared holders hold (in R);
 *   semaphore                          STRING "\0S" .. token (one holder of one
 *                                      permit), or a ZSET holding the marker
 *                                      member "\0S" at score +inf;
 *   anything else (e.g. symfony's RedisStore: a ZSET without the marker) is a
 *                                      foreign holder: held by someone else.
 * No token begins with a NUL byte (the glue refuses one), so no mutex value
 * looks like a marker. A script that finds the name held under another kind
 * answers the error reply "DLKIND <holder's kind>" (mutex, readers-writer,
 * semaphore) in the same atomic step that would have granted it, so the check
 * cannot race a grant; the core turns it into DL_ERR_KIND. K is read with
 * redis.pcall('GET'): a non-string K gives an error table, not a script error,
 * and an uncontended call pays nothing for the check.
 */
#ifndef DL_SCRIPTS_H
#define DL_SCRIPTS_H

/* Server time in ms, as a Lua expression over t = redis.call('TIME'). */
#define DL_LUA_NOW_MS "tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)"

/*
 * Lua: `out` = the next fencing token, from counter c (the name's slot's:
 * dl_key_fence_counter). fn is the name's own counter of earlier releases
 * (one per name, never deleted then): while it exists it may be ahead of c,
 * so c is moved past it and it is deleted, and no token is ever lower than
 * one already given for the name. c == fn: a prefix that keeps per-name
 * counters (dl_lease.h). docs/decisions/0015-fencing-counter-per-hash-slot.md.
 */
#define DL_LUA_FENCE(c, fn, out) \
    "local " out " = redis.call('INCR', " c ") " \
    "if " c " ~= " fn " then local o = redis.call('GET', " fn ") " \
        "if o then o = tonumber(o) " \
            "if o >= " out " then " out " = o + 1 redis.call('SET', " c ", " out ") end " \
            "redis.call('DEL', " fn ") end end "

/*
 * Lua: hk = the kind of whoever holds K, from v = redis.pcall('GET', K):
 * nil (free), 'mutex', 'readers-writer', 'semaphore', or 'foreign' (a value no
 * distlock kind writes). Run only where K was found not ours: it costs nothing
 * on the uncontended path.
 */
#define DL_LUA_HOLDER_KIND(k, v) \
    "local hk " \
    "if type(" v ") == 'table' then " \
        "hk = type(redis.pcall('ZSCORE', " k ", '\\0S')) == 'string' and 'semaphore' or 'foreign' " \
    "elseif " v " then " \
        "local c = string.sub(" v ", 1, 2) " \
        "if c == '\\0S' then hk = 'semaphore' elseif c == '\\0W' or c == '\\0R' then hk = 'readers-writer' " \
        "elseif string.byte(" v ") == 0 then hk = 'foreign' else hk = 'mutex' end " \
    "end "

/* Lua: after DL_LUA_HOLDER_KIND, refuse a holder of another distlock kind than mine. */
#define DL_LUA_REFUSE_KIND(mine) \
    "if hk and hk ~= '" mine "' and hk ~= 'foreign' then return redis.error_reply('DLKIND ' .. hk) end "

/* Lua: DL_LUA_HOLDER_KIND + DL_LUA_REFUSE_KIND for a mutex, on K = KEYS[1] read into v. */
#define DL_LUA_MUTEX_ONLY DL_LUA_HOLDER_KIND("KEYS[1]", "v") DL_LUA_REFUSE_KIND("mutex")

/*
 * Acquire (while waiting, or with fencing). KEYS K F Q, and FN when fencing; ARGV token, ttl ms,
 * fence flag "1"/"0", waiter window ms ("0": not waiting). Granted: leaves Q,
 * returns {1, fence} (fence 0 without fencing). Taken: when waiting, enters Q
 * with an expiry (so the holder's release wakes a waiter), dropping the
 * entries that expired (waiters that died or left without their cancel: the
 * release only counts the live ones, it does not prune), returns {0, PTTL}.
 * The fencing counter has no TTL: it must outlive every lease to stay monotonic.
 * Held under another kind: DLKIND (never a wait: a wait cannot end it).
 */
#define DL_SCRIPT_ACQUIRE \
    "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then " \
        "if ARGV[4] ~= '0' then redis.call('ZREM', KEYS[3], ARGV[1]) end " \
        "if ARGV[3] == '1' then " DL_LUA_FENCE("KEYS[2]", "KEYS[4]", "f") "return {1, f} end " \
        "return {1, 0} " \
    "end " \
    "local v = redis.pcall('GET', KEYS[1]) " \
    DL_LUA_MUTEX_ONLY \
    "if ARGV[4] ~= '0' then " \
        "local t = redis.call('TIME') local w = tonumber(ARGV[4]) local now = " DL_LUA_NOW_MS " " \
        "redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now) " \
        "redis.call('ZADD', KEYS[3], now + w, ARGV[1]) " \
        "if redis.call('PTTL', KEYS[3]) < w then redis.call('PEXPIRE', KEYS[3], w) end " \
    "end " \
    "return {0, redis.call('PTTL', KEYS[1])}"

/*
 * Release (default mode): compare-and-delete that wakes one waiter. KEYS K W Q;
 * ARGV token, wake list TTL ms. Returns 1 if deleted, 0 if another owner holds
 * it, -1 if the key is gone (the caller tells an expiry from its own earlier
 * attempt whose reply was lost: dl_lock_release). Only when a live waiter is
 * in Q (an entry whose expiry is after now: ZCOUNT, O(log n)) is a wake token
 * pushed; W holds at most one (LTRIM, needed only when one was there already)
 * and expires. Redis serves blocked BLPOP clients in arrival order: the
 * longest waiter wakes. Expired entries are left to the next registration by
 * DL_SCRIPT_ACQUIRE (the cancel and the multi-lock's release prune too) and
 * to Q's own TTL: this script runs on every hand-over, and each call a script
 * makes costs the server about a microsecond beyond the command itself
 * (docs/decisions/0021-plain-commands-and-a-slimmer-release-on-the-hand-over.md).
 * K held under another kind: DLKIND.
 */
#define DL_SCRIPT_RELEASE \
    "local call = redis.call " \
    "local v = redis.pcall('GET', KEYS[1]) " \
    "if v ~= ARGV[1] then " DL_LUA_MUTEX_ONLY "if v then return 0 end return -1 end " \
    "call('DEL', KEYS[1]) " \
    "if call('EXISTS', KEYS[3]) == 1 then " \
        "local t = call('TIME') " \
        "if call('ZCOUNT', KEYS[3], " DL_LUA_NOW_MS " + 1, '+inf') > 0 then " \
            "if call('RPUSH', KEYS[2], '1') > 1 then call('LTRIM', KEYS[2], 0, 0) end " \
            "call('PEXPIRE', KEYS[2], ARGV[2]) " \
        "end " \
    "end " \
    "return 1"

/*
 * A default-mode waiter gives up. KEYS K Q W; ARGV token, wake list TTL ms.
 * The last one out removes the wake list. While others still wait and the
 * name is free, it pushes a wake token: a waiter that gives up at its
 * deadline drops its connection while BLPOP may already have popped the
 * release's wake token for it, and that wake-up is passed on here rather than
 * lost (docs/decisions/0019-no-hand-over-lost-at-the-deadline.md). An extra token only
 * costs a waiter one attempt. Returns 1 when it pushed one.
 */
#define DL_SCRIPT_CANCEL \
    "redis.call('ZREM', KEYS[2], ARGV[1]) " \
    "if redis.call('EXISTS', KEYS[2]) == 0 then redis.call('DEL', KEYS[3]) return 0 end " \
    "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end " \
    "local t = redis.call('TIME') " \
    "redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', " DL_LUA_NOW_MS ") " \
    "if redis.call('ZCARD', KEYS[2]) == 0 then redis.call('DEL', KEYS[3]) return 0 end " \
    "redis.call('RPUSH', KEYS[3], '1') redis.call('LTRIM', KEYS[3], 0, 0) " \
    "redis.call('PEXPIRE', KEYS[3], ARGV[2]) " \
    "return 1"

/*
 * Fair acquire. KEYS K F FQ FA MYWAKE, and FN when fencing; ARGV token, ttl ms, fence flag, liveness
 * window ms ("0": do not queue, as tryLock). Already handed over to us (found
 * by this attempt rather than by BLPOP): extend the hand-over's claim to our
 * ttl and take it ({1, fence from our wake list}). Free and we are first among the live
 * waiters (dead heads are dropped): take it. Else queue (keeping our place:
 * ZADD NX) and refresh our liveness; return {0, PTTL}. Held under another
 * kind: DLKIND.
 */
#define DL_SCRIPT_FAIR_ACQUIRE \
    "local tok = ARGV[1] " \
    "local v = redis.pcall('GET', KEYS[1]) " \
    "if v == tok then " \
        "redis.call('PEXPIRE', KEYS[1], ARGV[2]) " \
        "redis.call('ZREM', KEYS[3], tok) redis.call('HDEL', KEYS[4], tok) " \
        "local f = redis.call('LPOP', KEYS[5]) redis.call('DEL', KEYS[5]) " \
        "return {1, tonumber(f) or 0} " \
    "end " \
    "if v then " DL_LUA_MUTEX_ONLY "end " \
    "local t = redis.call('TIME') local now = " DL_LUA_NOW_MS " " \
    "local head " \
    "while true do " \
        "head = redis.call('ZRANGE', KEYS[3], 0, 0)[1] " \
        "if not head then break end " \
        "local d = redis.call('HGET', KEYS[4], head) " \
        "if d and tonumber(string.match(d, '^%d+')) >= now then break end " \
        "redis.call('ZREM', KEYS[3], head) redis.call('HDEL', KEYS[4], head) " \
    "end " \
    "if (not head or head == tok) and redis.call('EXISTS', KEYS[1]) == 0 then " \
        "redis.call('SET', KEYS[1], tok, 'PX', ARGV[2]) " \
        "redis.call('ZREM', KEYS[3], tok) redis.call('HDEL', KEYS[4], tok) " \
        "if ARGV[3] == '1' then " DL_LUA_FENCE("KEYS[2]", "KEYS[6]", "f") "return {1, f} end " \
        "return {1, 0} " \
    "end " \
    "local w = tonumber(ARGV[4]) " \
    "if w > 0 then " \
        "redis.call('ZADD', KEYS[3], 'NX', tonumber(t[1]) * 1000000 + tonumber(t[2]), tok) " \
        "redis.call('HSET', KEYS[4], tok, (now + w) .. ':' .. ARGV[2] .. ':' .. ARGV[3]) " \
        "if redis.call('PTTL', KEYS[3]) < w then redis.call('PEXPIRE', KEYS[3], w) redis.call('PEXPIRE', KEYS[4], w) end " \
    "end " \
    "return {0, redis.call('PTTL', KEYS[1])}"

/*
 * Fair release and fair cancel. KEYS K F FQ FA FN; ARGV token, wake prefix, wake
 * list TTL ms, claim ms, "release" | "cancel". A cancelling waiter first leaves
 * the queue. If the lock is ours, it goes straight to the longest live waiter:
 * SET to its token for min(its ttl, claim) (a waiter that died after its last
 * sign of life blocks others for the claim at most; a live one extends to its
 * ttl), fenced if it asked, and its own wake list gets the fencing number
 * (ARGV[3], its TTL, is the claim: a waiter that finds the hand-over by its
 * next attempt rather than by BLPOP still gets the number). Nobody live: the key is deleted. Returns 1
 * if the lock was ours, -1 if the key was gone, 0 if another owner holds it,
 * DLKIND if another kind holds it.
 */
#define DL_SCRIPT_FAIR_RELEASE \
    "local call, tok = redis.call, ARGV[1] " \
    "if ARGV[5] == 'cancel' then " \
        "call('ZREM', KEYS[3], tok) call('HDEL', KEYS[4], tok) call('DEL', ARGV[2] .. tok) " \
    "end " \
    "local v = redis.pcall('GET', KEYS[1]) " \
    "if v ~= tok then " DL_LUA_MUTEX_ONLY "if v then return 0 end return -1 end " \
    "local t = call('TIME') local now = " DL_LUA_NOW_MS " " \
    "while true do " \
        "local head = call('ZRANGE', KEYS[3], 0, 0)[1] " \
        "if not head then call('DEL', KEYS[1]) return 1 end " \
        "local d = call('HGET', KEYS[4], head) " \
        "call('ZREM', KEYS[3], head) call('HDEL', KEYS[4], head) " \
        "local exp, ttl, fence = string.match(d or '', '^(%d+):(%d+):(%d)$') " \
        "if exp and tonumber(exp) >= now then " \
            "call('SET', KEYS[1], head, 'PX', tonumber(ttl) < tonumber(ARGV[4]) and ttl or ARGV[4]) " \
            "local f = 0 if fence == '1' then " DL_LUA_FENCE("KEYS[2]", "KEYS[5]", "g") "f = g end " \
            "call('RPUSH', ARGV[2] .. head, f) call('PEXPIRE', ARGV[2] .. head, ARGV[3]) " \
            "return 1 " \
        "end " \
    "end"

/* Compare-and-PEXPIRE. KEYS K; ARGV token, ttl ms. Returns 1 if extended, 0 if not ours; DLKIND. */
#define DL_SCRIPT_REFRESH \
    "local v = redis.pcall('GET', KEYS[1]) " \
    "if v == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end " \
    DL_LUA_MUTEX_ONLY "return 0"

/*
 * Undo of a Redlock attempt that did not reach a quorum (dl_quorum): a plain
 * compare-and-delete. KEYS K; ARGV token. Returns 1 when it deleted. It wakes
 * nobody: the name was ours only on a minority of masters, and waking a
 * waiter for it would only start another split vote.
 */
#define DL_SCRIPT_UNDO "if redis.pcall('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"

/* Ownership and lease left. KEYS K; ARGV token. Returns the PTTL in ms if ours, -3 if not; DLKIND. */
#define DL_SCRIPT_STATUS \
    "local v = redis.pcall('GET', KEYS[1]) " \
    "if v == ARGV[1] then return redis.call('PTTL', KEYS[1]) end " \
    DL_LUA_MUTEX_ONLY "return -3"

/*
 * Wake the longest waiter, after a native compare-and-delete (DELIFEQ) found
 * waiters registered (dl_lock_release). KEYS Q W; ARGV wake list TTL ms.
 * Returns 1 when a wake token was pushed. The wake-up half of DL_SCRIPT_RELEASE.
 */
#define DL_SCRIPT_WAKE \
    "local call = redis.call " \
    "if call('EXISTS', KEYS[1]) == 0 then return 0 end " \
    "local t = call('TIME') " \
    "if call('ZCOUNT', KEYS[1], " DL_LUA_NOW_MS " + 1, '+inf') == 0 then return 0 end " \
    "if call('RPUSH', KEYS[2], '1') > 1 then call('LTRIM', KEYS[2], 0, 0) end " \
    "call('PEXPIRE', KEYS[2], ARGV[1]) " \
    "return 1"

/*
 * ---- the counting semaphore (DL_LEASE_PERMITS) ----
 *
 * K is absent (no holder), a STRING "\0S" .. token (one holder of one permit,
 * which found the semaphore empty, with its lease as K's TTL), or a ZSET
 * owner token -> lease end (server ms), one member per holder, beside the
 * marker member "\0S" at score +inf (which tells the kind: see the top of this
 * file; no lease ends at +inf, so every range up to `now` leaves it alone). An
 * acquire of one permit that finds K absent (nobody holds any, and one permit
 * fits every limit, >= 1) makes the STRING form: a SET, no clock, no
 * counting, and its release costs what a mutex's does. The next acquire that
 * finds the STRING turns it into the ZSET (the holder keeps its token and
 * lease end); every script reads K by its TYPE. P is
 * a HASH of the holders of more than one permit only: owner token -> permits
 * held, and the field "+" = the sum of their permits beyond one each; so the
 * permits used are ZCARD K - 1 + P["+"], and a semaphore whose holders take one
 * permit each (the usual case) never touches P. W and Q are the wake list and
 * the waiters as for the mutex. Expired holders are dropped (their permits
 * freed) by the next acquire: a waiter blocks no longer than the earliest lease
 * end (+1 ms), so a dead holder's permits serve a waiter when its lease ends,
 * never later. K (and P) live at least as long as the longest lease, and the
 * last holder out deletes them (the marker would keep the ZSET), so an
 * idle semaphore leaves nothing behind. The scripts keep redis.call in a local
 * and pass Redis the strings they were given where they can: every Lua number
 * handed to Redis is printed with snprintf("%.17g"), the costliest step of a
 * short script (measured with callgrind: docs/primitives.md, "Server cost").
 */

/* Lua: `now` = server ms, from TIME. */
#define DL_LUA_SEM_NOW "local t = call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000) "

/* Lua: DL_LUA_HOLDER_KIND + DL_LUA_REFUSE_KIND for a semaphore, on K = KEYS[1] read into v. */
#define DL_LUA_SEM_ONLY DL_LUA_HOLDER_KIND("KEYS[1]", "v") DL_LUA_REFUSE_KIND("semaphore")

/*
 * Semaphore acquire. KEYS K P, and Q W when waiting; ARGV token, ttl ms,
 * permits, limit, ttl + 1 ms (K's TTL when ours is the longest lease: the
 * 1 ms covers a lease that began late in the ms), and when waiting the waiter
 * window ms. Granted when the live holders' permits plus ours fit the limit:
 * returns 1 (a waiter granted leaves Q, and the last one out removes W: a
 * wake token left there would outlive its use). Else, when waiting, enters Q
 * as a mutex waiter does; returns {0, ms until the earliest lease ends} (-1:
 * no holder, the limit is below our permits). A token that holds permits
 * already (restored, then asked again) keeps one entry: its permits are
 * replaced by the new ones. K absent and one permit asked: K becomes the
 * STRING form (see above); a STRING K is first made the ZSET of its holder.
 * A try (not waiting) sends two keys, not four: each KEYS/ARGV element costs
 * the server a Lua string. K held by a mutex or a readers-writer lock: DLKIND;
 * by a foreign holder (a ZSET without the marker): not granted, {0, K's PTTL}.
 */
#define DL_SCRIPT_SEM_ACQUIRE \
    "local call = redis.call " \
    "local k, ttl = tonumber(ARGV[3]), tonumber(ARGV[2]) " \
    "local ty = call('TYPE', KEYS[1]).ok " \
    "if ty == 'none' and k == 1 then " \
        "call('SET', KEYS[1], '\\0S' .. ARGV[1], 'PX', ARGV[2]) " \
        "if ARGV[6] then call('ZREM', KEYS[3], ARGV[1]) " \
            "if call('EXISTS', KEYS[3]) == 0 then call('DEL', KEYS[4]) end end " \
        "return 1 " \
    "end " \
    DL_LUA_SEM_NOW \
    "local foreign = false " \
    "if ty == 'string' then " \
        "local v = call('GET', KEYS[1]) " \
        "if string.sub(v, 1, 2) == '\\0S' then " \
            "local p = call('PTTL', KEYS[1]) " \
            "call('DEL', KEYS[1]) call('ZADD', KEYS[1], 'inf', '\\0S') " \
            "if p > 0 then call('ZADD', KEYS[1], now + p + 1, string.sub(v, 3)) call('PEXPIRE', KEYS[1], p + 2) end " \
        "else " DL_LUA_SEM_ONLY "foreign = true end " \
    "elseif ty == 'none' then call('ZADD', KEYS[1], 'inf', '\\0S') " \
    "elseif ty ~= 'zset' or not call('ZSCORE', KEYS[1], '\\0S') then foreign = true end " \
    "if not foreign then " \
        "local extra = tonumber(call('HGET', KEYS[2], '+') or '0') " \
        "if extra > 0 then " \
            "for _, g in ipairs(call('ZRANGEBYSCORE', KEYS[1], '-inf', now)) do " \
                "local e = call('HGET', KEYS[2], g) " \
                "if e then extra = extra - e + 1 call('HDEL', KEYS[2], g) end " \
            "end " \
            "if extra > 0 then call('HSET', KEYS[2], '+', extra) else call('HDEL', KEYS[2], '+') end " \
        "end " \
        "call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now) " \
        "local n, was = call('ZCARD', KEYS[1]) - 1, extra " \
        "if n + extra + k <= tonumber(ARGV[4]) then " \
            "local keep = n > 0 and call('PTTL', KEYS[1]) or 0 " \
            "if call('ZADD', KEYS[1], now + ttl, ARGV[1]) == 0 then " \
                "local old = call('HGET', KEYS[2], ARGV[1]) " \
                "if old then extra = extra - old + 1 call('HDEL', KEYS[2], ARGV[1]) end " \
            "end " \
            "if k > 1 then extra = extra + k - 1 call('HSET', KEYS[2], ARGV[1], ARGV[3]) end " \
            "if extra ~= was then " \
                "if extra > 0 then call('HSET', KEYS[2], '+', extra) else call('HDEL', KEYS[2], '+') end end " \
            "if keep <= ttl then keep = ttl + 1 call('PEXPIRE', KEYS[1], ARGV[5]) end " \
            "if extra > 0 then call('PEXPIRE', KEYS[2], keep) end " \
            "if ARGV[6] then call('ZREM', KEYS[3], ARGV[1]) " \
                "if call('EXISTS', KEYS[3]) == 0 then call('DEL', KEYS[4]) end end " \
            "return 1 " \
        "end " \
        "if n == 0 then call('DEL', KEYS[1]) end " \
    "end " \
    "if ARGV[6] then " \
        "local w = tonumber(ARGV[6]) " \
        "call('ZADD', KEYS[3], now + w, ARGV[1]) " \
        "if call('PTTL', KEYS[3]) < w then call('PEXPIRE', KEYS[3], ARGV[6]) end " \
    "end " \
    "if foreign then return {0, call('PTTL', KEYS[1])} end " \
    "local first = call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2] " \
    "if first then return {0, first - now} end " \
    "return {0, -1}"

/*
 * Semaphore release. KEYS K W Q P; ARGV token, wake list TTL ms. A STRING K
 * (one holder of one permit) is deleted as a mutex's key, waking one waiter;
 * on the ZSET our permits are read from P (a token asked again with other
 * permits, or restored, may hold more than its handle took). Returns 1 when
 * our lease was live and is gone now, -1 when we held nothing (never granted,
 * released already, or its lease ended: its permits were free from then on).
 * Wakes as many live waiters as permits it frees: one wake token each on W,
 * which holds at most one per live waiter. The last holder out deletes K and
 * P. K held by another kind: DLKIND.
 */
#define DL_SCRIPT_SEM_RELEASE \
    "local call = redis.call " \
    "local ty = call('TYPE', KEYS[1]).ok " \
    "if ty == 'string' then " \
        "local v = call('GET', KEYS[1]) " \
        "if v ~= '\\0S' .. ARGV[1] then " DL_LUA_SEM_ONLY "return -1 end " \
        "call('DEL', KEYS[1]) " \
        "if call('EXISTS', KEYS[3]) == 1 then " \
            "local t = call('TIME') " \
            "call('ZREMRANGEBYSCORE', KEYS[3], '-inf', " DL_LUA_NOW_MS ") " \
            "local n = call('ZCARD', KEYS[3]) " \
            "if n > 0 then " \
                "call('RPUSH', KEYS[2], '1') call('LTRIM', KEYS[2], 0, n - 1) call('PEXPIRE', KEYS[2], ARGV[2]) " \
            "end " \
        "end " \
        "return 1 " \
    "end " \
    "if ty ~= 'zset' then return -1 end " \
    "local s = call('ZSCORE', KEYS[1], ARGV[1]) " \
    "if not s then return -1 end " \
    "call('ZREM', KEYS[1], ARGV[1]) " \
    "local k = 1 " \
    "local e = call('HGET', KEYS[4], ARGV[1]) " \
    "if e then k = tonumber(e) call('HDEL', KEYS[4], ARGV[1]) " \
        "if call('HINCRBY', KEYS[4], '+', 1 - k) <= 0 then call('HDEL', KEYS[4], '+') end end " \
    "if call('ZCARD', KEYS[1]) == 1 then call('DEL', KEYS[1], KEYS[4]) end " \
    "local t = call('TIME') " \
    "if s + 0 <= t[1] * 1000 + t[2] / 1000 then return -1 end " \
    "if call('EXISTS', KEYS[3]) == 1 then " \
        "local now = t[1] * 1000 + math.floor(t[2] / 1000) " \
        "call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now) " \
        "local n = math.min(call('ZCARD', KEYS[3]), k) " \
        "if n > 0 then " \
            "for i = 1, n do call('RPUSH', KEYS[2], '1') end " \
            "call('LTRIM', KEYS[2], 0, call('ZCARD', KEYS[3]) - 1) " \
            "call('PEXPIRE', KEYS[2], ARGV[2]) " \
        "end " \
    "end " \
    "return 1"

/*
 * A semaphore waiter gives up. KEYS K Q W; ARGV token, wake list TTL ms. The
 * last one out removes W. While others still wait it pushes one wake token
 * (passing on one its BLPOP may have taken as it left: see DL_SCRIPT_CANCEL;
 * a spare one costs a waiter one attempt). Returns 1 when it pushed one.
 */
#define DL_SCRIPT_SEM_CANCEL \
    "redis.call('ZREM', KEYS[2], ARGV[1]) " \
    "local t = redis.call('TIME') " \
    "redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', " DL_LUA_NOW_MS ") " \
    "local n = redis.call('ZCARD', KEYS[2]) " \
    "if n == 0 then redis.call('DEL', KEYS[3]) return 0 end " \
    "redis.call('RPUSH', KEYS[3], '1') redis.call('LTRIM', KEYS[3], 0, n - 1) " \
    "redis.call('PEXPIRE', KEYS[3], ARGV[2]) " \
    "return 1"

/*
 * Semaphore refresh. KEYS K P; ARGV token, ttl ms. 1 when our lease was live
 * and now ends ttl ms from now, else 0 (DLKIND: another kind holds K). K and
 * P are made to live at least as long as the new lease.
 */
#define DL_SCRIPT_SEM_REFRESH \
    "local call = redis.call " \
    "local ty = call('TYPE', KEYS[1]).ok " \
    "if ty == 'string' then " \
        "local v = call('GET', KEYS[1]) " \
        "if v ~= '\\0S' .. ARGV[1] then " DL_LUA_SEM_ONLY "return 0 end " \
        "call('PEXPIRE', KEYS[1], ARGV[2]) return 1 " \
    "end " \
    "if ty ~= 'zset' then return 0 end " \
    "local s = call('ZSCORE', KEYS[1], ARGV[1]) " \
    DL_LUA_SEM_NOW \
    "if not s or tonumber(s) <= now then return 0 end " \
    "local ttl = tonumber(ARGV[2]) " \
    "call('ZADD', KEYS[1], 'XX', now + ttl, ARGV[1]) " \
    "if call('PTTL', KEYS[1]) <= ttl then call('PEXPIRE', KEYS[1], ttl + 1) call('PEXPIRE', KEYS[2], ttl + 1) end " \
    "return 1"

/* Semaphore status. KEYS K; ARGV token. The ms left of our lease if live, -3 if not (as DL_SCRIPT_STATUS); DLKIND. */
#define DL_SCRIPT_SEM_STATUS \
    "local ty = redis.call('TYPE', KEYS[1]).ok " \
    "if ty == 'string' then " \
        "local v = redis.call('GET', KEYS[1]) " \
        "if v ~= '\\0S' .. ARGV[1] then " DL_LUA_SEM_ONLY "return -3 end " \
        "local p = redis.call('PTTL', KEYS[1]) if p <= 0 then return -3 end return p " \
    "end " \
    "if ty ~= 'zset' then return -3 end " \
    "local s = redis.call('ZSCORE', KEYS[1], ARGV[1]) " \
    "if not s then return -3 end " \
    "local t = redis.call('TIME') local left = tonumber(s) - (" DL_LUA_NOW_MS ") " \
    "if left <= 0 then return -3 end return left"

/*
 * Semaphore usage, read only. KEYS K P. Returns {live holders, permits they
 * hold} (holders whose lease ended are not counted, though not yet dropped;
 * the marker is not a holder: the range stops below +inf). A foreign holder:
 * {0, 0}; a mutex or readers-writer lock: DLKIND.
 */
#define DL_SCRIPT_SEM_USAGE \
    "local ty = redis.call('TYPE', KEYS[1]).ok " \
    "if ty == 'string' then " \
        "local v = redis.call('GET', KEYS[1]) " \
        "if string.sub(v, 1, 2) == '\\0S' then return {1, 1} end " \
        DL_LUA_SEM_ONLY "return {0, 0} " \
    "end " \
    "if ty ~= 'zset' or not redis.call('ZSCORE', KEYS[1], '\\0S') then return {0, 0} end " \
    "local t = redis.call('TIME') local now = " DL_LUA_NOW_MS " " \
    "local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '(inf') " \
    "local used = #live " \
    "if redis.call('HEXISTS', KEYS[2], '+') == 1 then " \
        "for _, h in ipairs(live) do used = used + tonumber(redis.call('HGET', KEYS[2], h) or '1') - 1 end " \
    "end " \
    "return {#live, used}"

/*
 * ---- shared and exclusive locking of one name (DL_LEASE_SHARED, DL_LEASE_WRITE) ----
 *
 * K is "\0W" .. the exclusive holder's token while a writer holds, and "\0R"
 * while only shared holders hold, with the longest shared lease (+1 ms) as its
 * TTL: K exists whenever anyone holds the name, so a mutex's SET NX (or
 * symfony's RedisStore) on it fails, and its value tells the kind (see the top
 * of this file). R is a ZSET shared holder's token -> lease end
 * (server ms), each shared holder with its own lease; Q the exclusive waiters
 * and RQ the shared waiters (ZSET token -> entry expiry, as the mutex's Q); W
 * the exclusive waiters' wake list and RW the shared waiters'. Writer
 * preference: a live exclusive waiter keeps new shared holders out, so a
 * stream of readers cannot starve it. Every script has the same shape:
 * KEYS K F W Q R RQ RW, and FN when fencing; ARGV token, ttl ms, fence flag, waiter window ms ("0":
 * not waiting), wake list TTL ms. K held by a mutex or a semaphore: DLKIND.
 */
#define DL_LUA_RW_ARGS \
    "local kK, kF, kW, kQ, kR, kRQ, kRW, kFN = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8] " \
    "local tok, win, wttl = ARGV[1], tonumber(ARGV[4]), ARGV[5] " \
    "local t = redis.call('TIME') local now = " DL_LUA_NOW_MS " "

/* Lua: DL_LUA_HOLDER_KIND + DL_LUA_REFUSE_KIND for a readers-writer lock, on kK read into v. */
#define DL_LUA_RW_ONLY DL_LUA_HOLDER_KIND("kK", "v") DL_LUA_REFUSE_KIND("readers-writer")

/*
 * Lua: kv = K's value; held = a writer (or a foreign holder) has K. Another
 * kind's holder: DLKIND.
 */
#define DL_LUA_RW_HELD \
    "local kv = redis.pcall('GET', kK) local held = false " \
    "if kv and kv ~= '\\0R' then local v = kv " DL_LUA_RW_ONLY "held = true end "

/* Lua: R, and K's "\0R" while no writer holds it, live as long as the longest shared lease. */
#define DL_LUA_RW_KEEP_R \
    "local last = redis.call('ZRANGE', kR, -1, -1, 'WITHSCORES')[2] " \
    "if last then local ms = tonumber(last) - now + 1 " \
        "redis.call('PEXPIRE', kR, ms) redis.call('SET', kK, '\\0R', 'PX', ms) end "

/*
 * Lua: after any change, wake whoever can go now (none is lost: every change
 * that can let a waiter in runs this, in the same script). Expired entries
 * go first. Without a writer, K follows R: "\0R" for as long as the longest
 * shared lease, gone when none is left. A writer holds: nobody (its release
 * runs this). Free or shared, and an exclusive waiter: one (when no shared
 * holder is left; else the last shared holder's release wakes it). No
 * exclusive waiter: every shared waiter. A wake list left without waiters is
 * deleted.
 */
#define DL_LUA_RW_WAKE \
    "redis.call('ZREMRANGEBYSCORE', kQ, '-inf', now) redis.call('ZREMRANGEBYSCORE', kRQ, '-inf', now) " \
    "redis.call('ZREMRANGEBYSCORE', kR, '-inf', now) " \
    "local wv = redis.pcall('GET', kK) " \
    "local free = not wv or wv == '\\0R' " \
    "if free then " \
        "if redis.call('EXISTS', kR) == 1 then " DL_LUA_RW_KEEP_R "elseif wv then redis.call('DEL', kK) end " \
    "end " \
    "local nw, nr = redis.call('ZCARD', kQ), redis.call('ZCARD', kRQ) " \
    "if nw == 0 then redis.call('DEL', kW) end " \
    "if nr == 0 then redis.call('DEL', kRW) end " \
    "if free then " \
        "if nw > 0 then " \
            "if redis.call('EXISTS', kR) == 0 then " \
                "redis.call('RPUSH', kW, '1') redis.call('LTRIM', kW, 0, 0) redis.call('PEXPIRE', kW, wttl) " \
            "end " \
        "elseif nr > 0 then " \
            "for i = 1, nr do redis.call('RPUSH', kRW, '1') end " \
            "redis.call('LTRIM', kRW, 0, nr - 1) redis.call('PEXPIRE', kRW, wttl) " \
        "end " \
    "end "

/* Lua: a waiter enters queue z (window win ms). */
#define DL_LUA_RW_ENTER(z) \
    "if win > 0 then redis.call('ZADD', " z ", now + win, tok) " \
        "if redis.call('PTTL', " z ") < win then redis.call('PEXPIRE', " z ", win) end end "

/* Lua (after DL_LUA_RW_HELD): the time until something may change for a waiter:
 * the holder's PTTL when K is held, else the earliest entry of z. */
#define DL_LUA_RW_HINT(z) \
    "local p = -2 if held then p = redis.call('PTTL', kK) end " \
    "if p == -2 then local f = redis.call('ZRANGE', " z ", 0, 0, 'WITHSCORES')[2] " \
        "if f then p = tonumber(f) - now end end " \
    "return {0, p}"

/*
 * Exclusive acquire on a name with shared holders. Granted when nobody holds
 * it, shared or exclusive: K becomes "\0W" .. token; {1, fence} (fence 0
 * without fencing). Else, when waiting, enters Q; {0, ms until K's lease or
 * the earliest shared lease ends}.
 */
#define DL_SCRIPT_RW_WRITE_ACQUIRE \
    DL_LUA_RW_ARGS \
    "redis.call('ZREMRANGEBYSCORE', kR, '-inf', now) " \
    DL_LUA_RW_HELD \
    "if not held and redis.call('EXISTS', kR) == 0 then " \
        "redis.call('SET', kK, '\\0W' .. tok, 'PX', ARGV[2]) " \
        "if win > 0 then redis.call('ZREM', kQ, tok) " \
            "if redis.call('EXISTS', kQ) == 0 then redis.call('DEL', kW) end end " \
        "if ARGV[3] == '1' then " DL_LUA_FENCE("kF", "kFN", "f") "return {1, f} end " \
        "return {1, 0} " \
    "end " \
    DL_LUA_RW_ENTER("kQ") \
    DL_LUA_RW_HINT("kR")

/* Exclusive release: 1 released, 0 another owner's, -1 gone (as DL_SCRIPT_RELEASE); wakes as DL_LUA_RW_WAKE. */
#define DL_SCRIPT_RW_WRITE_RELEASE \
    DL_LUA_RW_ARGS \
    "local v = redis.pcall('GET', kK) " \
    "if v ~= '\\0W' .. tok then " DL_LUA_RW_ONLY "if v then return 0 end return -1 end " \
    "redis.call('DEL', kK) " \
    DL_LUA_RW_WAKE \
    "return 1"

/* An exclusive waiter gives up: leaves Q; the shared waiters it kept out may go now. Returns 0. */
#define DL_SCRIPT_RW_WRITE_CANCEL \
    DL_LUA_RW_ARGS \
    "redis.call('ZREM', kQ, tok) " \
    DL_LUA_RW_WAKE \
    "return 0"

/* Exclusive refresh (compare-and-PEXPIRE of "\0W" .. token). KEYS K; ARGV token, ttl ms. 1 extended, 0 not ours; DLKIND. */
#define DL_SCRIPT_RW_WRITE_REFRESH \
    "local kK = KEYS[1] " \
    "local v = redis.pcall('GET', kK) " \
    "if v == '\\0W' .. ARGV[1] then return redis.call('PEXPIRE', kK, ARGV[2]) end " \
    DL_LUA_RW_ONLY "return 0"

/* Exclusive status. KEYS K; ARGV token. The PTTL in ms if ours, -3 if not; DLKIND. */
#define DL_SCRIPT_RW_WRITE_STATUS \
    "local kK = KEYS[1] " \
    "local v = redis.pcall('GET', kK) " \
    "if v == '\\0W' .. ARGV[1] then return redis.call('PTTL', kK) end " \
    DL_LUA_RW_ONLY "return -3"

/*
 * Shared acquire. Granted when no exclusive holder and no live exclusive
 * waiter: {1, 0}, K "\0R" as long as the longest shared lease. Else, when
 * waiting, enters RQ; {0, ms until K's lease or the earliest exclusive
 * waiter's entry ends}.
 */
#define DL_SCRIPT_RW_SHARED_ACQUIRE \
    DL_LUA_RW_ARGS \
    "redis.call('ZREMRANGEBYSCORE', kR, '-inf', now) redis.call('ZREMRANGEBYSCORE', kQ, '-inf', now) " \
    DL_LUA_RW_HELD \
    "if not held and redis.call('EXISTS', kQ) == 0 then " \
        "redis.call('ZADD', kR, now + tonumber(ARGV[2]), tok) " \
        DL_LUA_RW_KEEP_R \
        "if win > 0 then redis.call('ZREM', kRQ, tok) " \
            "if redis.call('EXISTS', kRQ) == 0 then redis.call('DEL', kRW) end end " \
        "return {1, 0} " \
    "end " \
    DL_LUA_RW_ENTER("kRQ") \
    DL_LUA_RW_HINT("kQ")

/* Lua: we hold no shared lease: K held by another kind is DLKIND. */
#define DL_LUA_RW_NOT_OURS \
    "local v = redis.pcall('GET', kK) " DL_LUA_RW_ONLY

/* Shared release: 1 when our shared lease was live, -1 when we held none (or it had ended); wakes. */
#define DL_SCRIPT_RW_SHARED_RELEASE \
    DL_LUA_RW_ARGS \
    "local s = redis.call('ZSCORE', kR, tok) " \
    "if not s then " DL_LUA_RW_NOT_OURS "return -1 end " \
    "redis.call('ZREM', kR, tok) " \
    DL_LUA_RW_WAKE \
    "if tonumber(s) <= now then return -1 end " \
    "return 1"

/* A shared waiter gives up: leaves RQ (passing on a wake-up it may have taken). Returns 0. */
#define DL_SCRIPT_RW_SHARED_CANCEL \
    DL_LUA_RW_ARGS \
    "redis.call('ZREM', kRQ, tok) " \
    DL_LUA_RW_WAKE \
    "return 0"

/* Shared refresh: 1 when our shared lease was live and now ends ttl ms from now, else 0. */
#define DL_SCRIPT_RW_SHARED_REFRESH \
    DL_LUA_RW_ARGS \
    "local s = redis.call('ZSCORE', kR, tok) " \
    "if not s or tonumber(s) <= now then " DL_LUA_RW_NOT_OURS "return 0 end " \
    "redis.call('ZADD', kR, 'XX', now + tonumber(ARGV[2]), tok) " \
    DL_LUA_RW_KEEP_R \
    "return 1"

/* Shared status: the ms left of our shared lease, -3 when we hold none. */
#define DL_SCRIPT_RW_SHARED_STATUS \
    DL_LUA_RW_ARGS \
    "local s = redis.call('ZSCORE', kR, tok) " \
    "if not s or tonumber(s) <= now then " DL_LUA_RW_NOT_OURS "return -3 end " \
    "return tonumber(s) - now"

/*
 * Promotion: the sole shared holder becomes the exclusive one, at once, or
 * not at all (a promotion that waited for other shared holders to leave would
 * deadlock against theirs): {1, fence} promoted; {0, 0} other holders (our
 * shared lease is kept); {-1, 0} we hold no shared lease.
 */
#define DL_SCRIPT_RW_PROMOTE \
    DL_LUA_RW_ARGS \
    "redis.call('ZREMRANGEBYSCORE', kR, '-inf', now) " \
    "if not redis.call('ZSCORE', kR, tok) then " DL_LUA_RW_NOT_OURS "return {-1, 0} end " \
    DL_LUA_RW_HELD \
    "if held or redis.call('ZCARD', kR) > 1 then return {0, 0} end " \
    "redis.call('DEL', kR) " \
    "redis.call('SET', kK, '\\0W' .. tok, 'PX', ARGV[2]) " \
    "if ARGV[3] == '1' then " DL_LUA_FENCE("kF", "kFN", "f") "return {1, f} end " \
    "return {1, 0}"

/* Demotion: the exclusive holder becomes a shared one (ttl ms), and shared waiters may join: 1, or 0/-1 as a release. */
#define DL_SCRIPT_RW_DEMOTE \
    DL_LUA_RW_ARGS \
    "local v = redis.pcall('GET', kK) " \
    "if v ~= '\\0W' .. tok then " DL_LUA_RW_ONLY "if v then return 0 end return -1 end " \
    "redis.call('DEL', kK) " \
    "redis.call('ZADD', kR, now + tonumber(ARGV[2]), tok) " \
    DL_LUA_RW_WAKE \
    "return 1"

/*
 * ---- multi-locks: all of n names or none (dl_multi.h) ----
 *
 * KEYS, for each name in turn: K, then F FN when fencing, then Q W when waiting
 * (1 to 5 keys a name, all in one Cluster slot: a try without fencing sends
 * only the names, as each KEYS/ARGV element costs the server a Lua string);
 * ARGV ttl ms, waiter window ms ("0": not waiting), then each name's owner
 * token. Fencing is told by the keys a name has (3, or 5 when waiting); the
 * wake list TTL is DL_WAKE_TTL_MS, 2000 (checked in dl_multi.c). Each name is SET NX to its own token for the
 * ttl (its own lease, fenced on its slot's counter when asked); when one is
 * taken, those set are deleted again (all or none, in one script). Granted:
 * 1 when neither fencing nor waiting, else {1, fence1 .. fencen} (fences 0
 * without fencing). Else nothing is taken: when waiting, we enter the waiters
 * of each taken name (its release wakes us), and leave those of each free
 * one, passing a wake-up on to the waiters still there (a release of that
 * name may have woken us instead of them); returns {0, the least PTTL among
 * the taken names (-1: none has a TTL), the 1-based indexes of the taken
 * names ...}. A name held under another kind (checked among the names not
 * taken yet, in the same script): nothing is taken, "DLKIND <kind> <index>".
 */
#define DL_SCRIPT_MULTI_ACQUIRE \
    "local call = redis.call " \
    "local n = #ARGV - 2 local s = #KEYS / n local win = tonumber(ARGV[2]) " \
    "local fenced = s - (win > 0 and 2 or 0) == 3 " \
    "local qo = fenced and 4 or 2 " \
    "local got = 0 " \
    "for i = 1, n do " \
        "if not call('SET', KEYS[s * i - s + 1], ARGV[2 + i], 'NX', 'PX', ARGV[1]) then break end " \
        "got = i " \
    "end " \
    "if got == n then " \
        "if win == 0 and not fenced then return 1 end " \
        "local r = {1} " \
        "for i = 1, n do " \
            "local b = s * i - s " \
            "if win > 0 then call('ZREM', KEYS[b + qo], ARGV[2 + i]) " \
                "if call('EXISTS', KEYS[b + qo]) == 0 then call('DEL', KEYS[b + qo + 1]) end end " \
            "if fenced then " DL_LUA_FENCE("KEYS[b + 2]", "KEYS[b + 3]", "f") "r[#r + 1] = f else r[#r + 1] = 0 end " \
        "end " \
        "return r " \
    "end " \
    "for i = 1, got do call('DEL', KEYS[s * i - s + 1]) end " \
    "for i = got + 1, n do " \
        "local v = redis.pcall('GET', KEYS[s * i - s + 1]) " \
        "if v then " DL_LUA_HOLDER_KIND("KEYS[s * i - s + 1]", "v") \
            "if hk ~= 'mutex' and hk ~= 'foreign' then return redis.error_reply('DLKIND ' .. hk .. ' ' .. i) end end " \
    "end " \
    "local t = call('TIME') local now = " DL_LUA_NOW_MS " " \
    "local r = {0, -1} " \
    "for i = 1, n do " \
        "local b = s * i - s " \
        "local k, tok = KEYS[b + 1], ARGV[2 + i] " \
        "local p = call('PTTL', k) " \
        "if p ~= -2 then " \
            "r[#r + 1] = i " \
            "if p >= 0 and (r[2] < 0 or p < r[2]) then r[2] = p end " \
            "if win > 0 then local q = KEYS[b + qo] call('ZADD', q, now + win, tok) " \
                "if call('PTTL', q) < win then call('PEXPIRE', q, ARGV[2]) end end " \
        "elseif win > 0 then " \
            "local q, w = KEYS[b + qo], KEYS[b + qo + 1] " \
            "call('ZREM', q, tok) call('ZREMRANGEBYSCORE', q, '-inf', now) " \
            "if call('ZCARD', q) > 0 then " \
                "call('RPUSH', w, '1') call('LTRIM', w, 0, 0) call('PEXPIRE', w, 2000) " \
            "end " \
        "end " \
    "end " \
    "return r"

/*
 * Releases n mutex leases at once (a multi-lock's names, or the request end's
 * leases). KEYS K Q of each name in turn (one Cluster slot); ARGV each name's
 * owner token. Each name is compare-and-deleted as DL_SCRIPT_RELEASE does it,
 * and a live waiter of a released name woken (its wake list W is Q's stem +
 * ":wake": dl_key derives every companion as one stem + its suffix; the wake
 * list's TTL is DL_WAKE_TTL_MS, 2000, checked in dl_multi.c). Returns a
 * string of one character per name: "1" released, "0" not ours (another
 * owner or another kind, or gone: a handle's lease that another kind now
 * holds is lost, which is all the request end needs to know). One script for all names, not one per name: each script
 * call and each KEYS/ARGV element costs the server (docs/primitives.md,
 * "Server cost").
 */
#define DL_SCRIPT_MULTI_RELEASE \
    "local call = redis.call local out = '' " \
    "for i = 1, #ARGV do " \
        "local k, q = KEYS[2 * i - 1], KEYS[2 * i] " \
        "if redis.pcall('GET', k) == ARGV[i] then " \
            "call('DEL', k) out = out .. '1' " \
            "if call('EXISTS', q) == 1 then " \
                "local t = call('TIME') " \
                "call('ZREMRANGEBYSCORE', q, '-inf', " DL_LUA_NOW_MS ") " \
                "if call('ZCARD', q) > 0 then " \
                    "local w = string.sub(q, 1, -9) .. ':wake' " \
                    "call('RPUSH', w, '1') call('LTRIM', w, 0, 0) call('PEXPIRE', w, 2000) " \
                "end " \
            "end " \
        "else out = out .. '0' end " \
    "end " \
    "return out"

/*
 * ---- status: what holds a name, of any kind (DistLock::status(), isLocked()) ----
 *
 * Read only (no write, so a replica could answer it and a retry is harmless).
 * KEYS K Q FQ R RQ P; no ARGV. K tells the kind (the key encoding of one
 * name, one kind; docs/primitives.md):
 *   STRING, first byte not NUL     a mutex (default or fair mode, a multi-lock
 *                                  member): its owner token (no token starts with
 *                                  NUL); the lease is K's PTTL;
 *   STRING "\0W" .. token          the exclusive lease of a readers-writer name;
 *   STRING "\0R"                   shared leases only: counted in R (the earlier
 *                                  layout had no K for them: R alone counts too);
 *   STRING "\0S" .. token          a semaphore with one holder of one permit;
 *   ZSET with member "\0S"         a semaphore: holder token -> lease end (ms),
 *                                  the marker at +inf; permits beyond one in P;
 *   anything else                  a holder distlock did not write (symfony's
 *                                  RedisStore: a ZSET of its tokens; a string with
 *                                  another tag; another type): foreign.
 * Only live leases count (lease end after the server's now), so a holder whose
 * lease ended but that no acquire has dropped yet is not seen; waiters are the
 * live entries of Q (mutex, exclusive and semaphore waiters) and RQ (shared
 * waiters), and the fair queue FQ's entries (dropped lazily, as today).
 * Returns {kind, holders, permits, longest lease ms, waiters}: kind 0 free,
 * 1 mutex, 2 exclusive, 3 shared, 4 semaphore, 5 foreign (dl_held_kind_t);
 * holders live leases (a foreign ZSET: its members; another foreign key: 1);
 * permits in use (a semaphore; else 0); lease -2 free, -1 a key without TTL,
 * else the ms until the last live lease ends.
 */
#define DL_SCRIPT_INSPECT \
    "local call = redis.call " \
    "local t = call('TIME') local now = " DL_LUA_NOW_MS " " \
    "local after = '(' .. now " \
    "local waiters = call('ZCOUNT', KEYS[2], after, '+inf') + call('ZCARD', KEYS[3]) " \
        "+ call('ZCOUNT', KEYS[5], after, '+inf') " \
    "local function leases(z, hi) " \
        "local n = call('ZCOUNT', z, after, hi) " \
        "if n == 0 then return 0, -2 end " \
        "local last = call('ZRANGE', z, hi, after, 'BYSCORE', 'REV', 'LIMIT', 0, 1, 'WITHSCORES')[2] " \
        "return n, tonumber(last) - now " \
    "end " \
    "local ty = call('TYPE', KEYS[1]).ok " \
    "if ty == 'string' then " \
        "local v = call('GET', KEYS[1]) " \
        "if string.byte(v, 1) ~= 0 then return {1, 1, 0, call('PTTL', KEYS[1]), waiters} end " \
        "local tag = string.sub(v, 2, 2) " \
        "if tag == 'W' then return {2, 1, 0, call('PTTL', KEYS[1]), waiters} end " \
        "if tag == 'S' then return {4, 1, 1, call('PTTL', KEYS[1]), waiters} end " \
        "if tag ~= 'R' then return {5, 1, 0, call('PTTL', KEYS[1]), waiters} end " \
    "elseif ty == 'zset' then " \
        "if not call('ZSCORE', KEYS[1], '\\0S') then " \
            "return {5, call('ZCARD', KEYS[1]), 0, call('PTTL', KEYS[1]), waiters} end " \
        "local n, left = leases(KEYS[1], '(+inf') " \
        "if n == 0 then return {0, 0, 0, -2, waiters} end " \
        "local used = n " \
        "if call('HGET', KEYS[6], '+') then " \
            "for _, h in ipairs(call('ZRANGE', KEYS[1], after, '(+inf', 'BYSCORE')) do " \
                "used = used + tonumber(call('HGET', KEYS[6], h) or '1') - 1 " \
            "end " \
        "end " \
        "return {4, n, used, left, waiters} " \
    "elseif ty ~= 'none' then " \
        "return {5, 1, 0, call('PTTL', KEYS[1]), waiters} " \
    "end " \
    "local n, left = leases(KEYS[4], '+inf') " \
    "if n == 0 then return {0, 0, 0, -2, waiters} end " \
    "return {3, n, 0, left, waiters}"

/*
 * The deadlock check (issue 47; docs/deadlocks.md), written in the same round
 * trip right behind a waiter's registration (its acquire script), by a thread
 * that holds other leases on this server. KEYS K R L: the name waited for,
 * this thread's wait record R = <stem>:waitfor:<owner> (a HASH; <stem> =
 * <K>{<K>}, dl_key), and where K's live waiters of our kind are (L: a ZSET
 * token -> expiry, or in fair mode FA, a HASH token -> "expiry:ttl:fence").
 * ARGV token (the waiting one), stem, record window ms, name offset (the
 * prefix's length, for messages), label (how others' messages name this
 * thread), our kind, a semaphore's limit and the permits we ask (else 0 0),
 * nx; then nx triples (name, stem, token) of the further
 * names of a multi-lock (kind 'a'; each has its own token and its own Q
 * <stem>:waiters); then for each lease this thread holds, its stem and its
 * token. A lease's holder key is <stem>:holder:<sha1hex of its token>: a
 * digest, since a key's name is seen by whoever may list keys (SCAN,
 * keyspace events), which a token must never be.
 *
 * What a waiter waits for, by kind (its edges: the holders' tokens):
 *   'm', 'f'  a mutex (fair: the same; its waiters queued ahead are left out,
 *             every cycle through one passes through the holder): the holder;
 *   'x'       an exclusive lease: the writer ("\0W" .. token in K) and every
 *             live reader (<stem>:readers);
 *   's'       a shared lease: the writer and, while an exclusive waiter is
 *             live (writer preference: it goes first, and it waits for the
 *             readers), every live reader too;
 *   'a'       a multi-lock: the holder of each of its names;
 *   'p'       a semaphore's permits: ANY of its holders (an OR-wait: one
 *             release may free it), and none while the permits in use
 *             (<stem>:permits counts those above one a holder) leave room
 *             for ours: a permit freed since we registered is ours at our
 *             next attempt (found by tests/model/deadlock.pml); every other
 *             kind waits for ALL of its holders (an AND-wait: one of them
 *             blocked for good blocks it).
 * The walk goes breadth first from our edges: a holder's holder key -> the
 * wait record its thread published -> that record's edges -> ... A record
 * counts only while its waiter is live in its L (a grant, a hand-over, a
 * cancel and an expired entry all leave it). Then the threads that can still
 * progress are found as a least fixpoint (a thread that waits for nothing,
 * for a holder that is not waiting, published nothing, or was not read, can;
 * an AND-waiter when all of its holders can; an OR-waiter when one can),
 * with this thread taken as blocked. We are deadlocked when we cannot
 * progress and a chain of blocked threads leads from our edges back to a
 * lease of ours: a cycle (AND-waits) or a knot (every holder that could free
 * an OR-waiter blocked in the same set) through us, which our wait closes.
 * A wait blocked only by somebody else's cycle is left to that cycle's
 * victim. K's value names a holder only in the form of the waiter's own kind
 * (a token for a mutex or multi-lock waiter, "\0W" .. token for a
 * readers-writer one, "\0S" .. token for a semaphore's): a name now held as
 * another kind refuses the waiter's next attempt (DLKIND), so it is no edge. Anything not readable (an ACL, a foreign holder, a holder that
 * published nothing, the read budget spent) counts as "can progress": never
 * a false report. At most 128 reads.
 *
 * Returns {0}: nothing to check (we are not a live waiter: granted, handed
 * over, refused; or every holder is this very thread, through another
 * instance: a wait on itself, which only that lease's expiry ends, as it
 * always did): R deleted, nothing published. {1}: no cycle or knot through
 * us: R and our holder keys published for the window; also when the name is
 * free now (released since our registration: another waiter may take it and
 * then wait for one of ours, and its check must find us;
 * tests/model/deadlock.pml). {2, off, K, label1, off1, K1, ..., offn, Kn}:
 * our wait closes a cycle (K is held by label1, which waits for K1, ..., Kn
 * is held by us): nothing published, R deleted. One script, so of the waits
 * that close one cycle exactly one sees it: the last to register.
 */
#define DL_SCRIPT_DEADLOCK \
    "local call, pcall, tok, kind = redis.call, redis.pcall, ARGV[1], ARGV[6] " \
    "local t = call('TIME') local now = " DL_LUA_NOW_MS " " \
    "local reads, nx = 0, tonumber(ARGV[9]) " \
    "local function live(l, kd, who) " \
        "local s " \
        "if kd == 'f' then s = pcall('HGET', l, who) if type(s) == 'string' then s = string.match(s, '^%d+') end " \
        "else s = pcall('ZSCORE', l, who) end " \
        "reads = reads + 1 " \
        "return type(s) == 'string' and tonumber(s) > now " \
    "end " \
    "local function holders(k, st, kd, off, out, lim, want) " \
        "local v = pcall('GET', k) " \
        "reads = reads + 1 " \
        "local h " \
        "if type(v) == 'string' and v ~= '' then " \
            "local tag = string.byte(v) == 0 and string.sub(v, 2, 2) " \
            "if not tag then if kd == 'm' or kd == 'f' then h = v end " \
            "elseif (tag == 'W' and (kd == 'x' or kd == 's')) or (tag == 'S' and kd == 'p') then h = string.sub(v, 3) end " \
        "end " \
        "if h then out[#out + 1] = {st, h, k, off} end " \
        "local rd = kd == 'x' " \
        "if kd == 's' then " \
            "local q = pcall('ZRANGE', st .. ':waiters', '(' .. now, '+inf', 'BYSCORE', 'LIMIT', 0, 1) " \
            "reads = reads + 1 " \
            "rd = type(q) == 'table' and q[1] ~= nil " \
        "end " \
        "if rd then " \
            "local r = pcall('ZRANGE', st .. ':readers', '(' .. now, '+inf', 'BYSCORE', 'LIMIT', 0, 32) " \
            "reads = reads + 1 " \
            "if type(r) == 'table' then for _, x in ipairs(r) do out[#out + 1] = {st, x, k, off} end end " \
        "end " \
        "if kd ~= 'p' then return false end " \
        "local used, lm, wn = 0, tonumber(lim), tonumber(want) " \
        "if not lm or not wn then return true end " \
        "if h then used = 1 " \
        "elseif type(v) == 'table' and v.err and string.sub(v.err, 1, 9) == 'WRONGTYPE' then " \
            "local r = pcall('ZRANGE', k, '(' .. now, '(+inf', 'BYSCORE', 'LIMIT', 0, 33) " \
            "reads = reads + 1 " \
            "if type(r) ~= 'table' or r.err or #r > 32 then return true end " \
            "local hs = {} " \
            "for _, x in ipairs(r) do out[#out + 1] = {st, x, k, off} hs[#hs + 1] = x end " \
            "used = #hs " \
            "if #hs > 0 then " \
                "local e = pcall('HMGET', st .. ':permits', unpack(hs)) " \
                "reads = reads + 1 " \
                "if type(e) ~= 'table' or e.err then return true end " \
                "for i = 1, #hs do if e[i] then used = used + (tonumber(e[i]) or 1) - 1 end end " \
            "end " \
        "elseif v then return true end " \
        "return lm - used >= wn " \
    "end " \
    "local function waits(kd, k, st, off, more, out, lim, want) " \
        "local unknown = holders(k, st, kd == 'a' and 'm' or kd, off, out, lim, want) " \
        "for _, m in ipairs(more) do if reads < 128 then holders(m[1], m[2], 'm', off, out) end end " \
        "return unknown " \
    "end " \
    "local lq, lt, more = KEYS[3], tok, {} " \
    "for i = 10, 9 + 3 * nx, 3 do more[#more + 1] = {ARGV[i], ARGV[i + 1], ARGV[i + 2]} end " \
    "local here = live(lq, kind, lt) " \
    "for _, m in ipairs(more) do " \
        "if not here and reads < 128 then lq, lt = m[2] .. ':waiters', m[3] here = live(lq, kind, lt) end " \
    "end " \
    "if not here then call('DEL', KEYS[2]) return {0} end " \
    "local mine = {} " \
    "local function hkey(stem, h) return stem .. ':holder:' .. redis.sha1hex(h) end " \
    "for i = 10 + 3 * nx, #ARGV - 1, 2 do mine[hkey(ARGV[i], ARGV[i + 1])] = true end " \
    "local me = {orw = kind == 'p', edges = {}} " \
    "local first = {} " \
    "me.unknown = waits(kind, KEYS[1], ARGV[2], ARGV[4], more, first, ARGV[7], ARGV[8]) " \
    "local own = 0 " \
    "for _, e in ipairs(first) do " \
        "local hk = hkey(e[1], e[2]) " \
        "if mine[hk] then own = own + 1 else me.edges[#me.edges + 1] = {hk, e[3], e[4]} end " \
    "end " \
    "if own > 0 and #me.edges == 0 and not me.unknown then call('DEL', KEYS[2]) return {0} end " \
    "if own > 0 and me.orw then me.unknown = true end " \
    "local nodes, byrec, res, queue = {}, {}, {}, {} " \
    "for _, e in ipairs(me.edges) do queue[#queue + 1] = e[1] end " \
    "local qi = 1 " \
    "while qi <= #queue and reads <= 121 do " \
        "local hk = queue[qi] " \
        "qi = qi + 1 " \
        "if res[hk] == nil and not mine[hk] then " \
            "res[hk] = false " \
            "local r = pcall('GET', hk) " \
            "reads = reads + 1 " \
            "if type(r) == 'string' then " \
                "if byrec[r] ~= nil then res[hk] = byrec[r] " \
                "else " \
                    "byrec[r] = false " \
                    "local rec = pcall('HMGET', r, 'k', 's', 'p', 't', 'l', 'q', 'm', 'n', 'c', 'w') " \
                    "reads = reads + 1 " \
                    "if type(rec) == 'table' and type(rec[1]) == 'string' and type(rec[2]) == 'string' and " \
                        "type(rec[4]) == 'string' and type(rec[6]) == 'string' and type(rec[7]) == 'string' and " \
                        "live(rec[6], rec[7], rec[4]) then " \
                        "local rmore, n = {}, tonumber(rec[8]) or 0 " \
                        "if n > 0 then " \
                            "local f = {} " \
                            "for j = 1, n do f[#f + 1] = 'k' .. j f[#f + 1] = 's' .. j end " \
                            "local x = pcall('HMGET', r, unpack(f)) " \
                            "reads = reads + 1 " \
                            "if type(x) == 'table' then " \
                                "for j = 1, 2 * n, 2 do " \
                                    "if type(x[j]) == 'string' and type(x[j + 1]) == 'string' then rmore[#rmore + 1] = {x[j], x[j + 1]} end " \
                                "end " \
                            "end " \
                        "end " \
                        "local out = {} " \
                        "local nd = {orw = rec[7] == 'p', lab = rec[5] or '?', edges = {}} " \
                        "nd.unknown = waits(rec[7], rec[1], rec[2], rec[3] or '0', rmore, out, rec[9], rec[10]) " \
                        "if nd.orw and #rmore < n then nd.unknown = true end " \
                        "nodes[#nodes + 1] = nd " \
                        "byrec[r] = #nodes " \
                        "res[hk] = #nodes " \
                        "for _, e in ipairs(out) do " \
                            "local h2 = hkey(e[1], e[2]) " \
                            "nd.edges[#nd.edges + 1] = {h2, e[3], e[4]} " \
                            "queue[#queue + 1] = h2 " \
                        "end " \
                    "end " \
                "end " \
            "end " \
        "end " \
    "end " \
    "local prog = {} " \
    "local function can(hk) " \
        "if mine[hk] then return false end " \
        "local x = res[hk] " \
        "return not x or prog[x] == true " \
    "end " \
    "local function free(nd) " \
        "if #nd.edges == 0 or nd.unknown then return true end " \
        "for _, e in ipairs(nd.edges) do " \
            "if can(e[1]) == nd.orw then return nd.orw end " \
        "end " \
        "return not nd.orw " \
    "end " \
    "local changed = true " \
    "while changed do " \
        "changed = false " \
        "for i, nd in ipairs(nodes) do " \
            "if not prog[i] and free(nd) then prog[i] = true changed = true end " \
        "end " \
    "end " \
    "if not free(me) then " \
        "local from, via, bq, at = {}, {}, {}, 1 " \
        "local function reach(j, e, i) " \
            "if from[j] == nil and not prog[j] then from[j] = i via[j] = e bq[#bq + 1] = j end " \
        "end " \
        "for _, e in ipairs(me.edges) do if res[e[1]] then reach(res[e[1]], e, 0) end end " \
        "while at <= #bq do " \
            "local i = bq[at] " \
            "at = at + 1 " \
            "for _, e in ipairs(nodes[i].edges) do " \
                "if mine[e[1]] then " \
                    "local path, j = {e}, i " \
                    "while j > 0 do table.insert(path, 1, j) table.insert(path, 1, via[j]) j = from[j] end " \
                    "local out = {2} " \
                    "for x = 1, #path, 2 do " \
                        "out[#out + 1] = path[x][3] " \
                        "out[#out + 1] = path[x][2] " \
                        "if path[x + 1] then out[#out + 1] = nodes[path[x + 1]].lab end " \
                    "end " \
                    "call('DEL', KEYS[2]) " \
                    "return out " \
                "end " \
                "if res[e[1]] then reach(res[e[1]], e, i) end " \
            "end " \
        "end " \
    "end " \
    "call('DEL', KEYS[2]) " \
    "call('HSET', KEYS[2], 'k', KEYS[1], 's', ARGV[2], 'p', ARGV[4], 't', lt, 'l', ARGV[5], 'q', lq, 'm', kind, 'c', ARGV[7], 'w', ARGV[8]) " \
    "for j, m in ipairs(more) do call('HSET', KEYS[2], 'n', j, 'k' .. j, m[1], 's' .. j, m[2]) end " \
    "call('PEXPIRE', KEYS[2], ARGV[3]) " \
    "for k in pairs(mine) do call('SET', k, KEYS[2], 'PX', ARGV[3]) end " \
    "return {1}"

/* sha1 of each text (printf '%s' "<text>" | sha1sum; checked against SCRIPT LOAD by test_conn). */
#define DL_SCRIPT_ACQUIRE_SHA "ab209e62bda3275c5304ccd1a32ffc8ee8f65150"
#define DL_SCRIPT_RELEASE_SHA "54eb6cc4626a1985246390c047981baa8e3475ff"
#define DL_SCRIPT_CANCEL_SHA "4350058ad868833ae9cbf3c08bf88cdbcfdab443"
#define DL_SCRIPT_FAIR_ACQUIRE_SHA "ad6907d01888ecfcea9baad9513c375c86b80bf8"
#define DL_SCRIPT_FAIR_RELEASE_SHA "b4b921228d86e8b81d227bf79f0f995723264f20"
#define DL_SCRIPT_REFRESH_SHA "3590fa48b246aa0565d213c2e8c3c1148eadc16a"
#define DL_SCRIPT_STATUS_SHA "07a65b88d5806b926d60b600945d7851d331fdf6"
#define DL_SCRIPT_UNDO_SHA "44994c25f7638147b581745952be2cc890301249"
#define DL_SCRIPT_WAKE_SHA "2cccf274b5075e0d6a5a1c71bf61c797c5932125"
#define DL_SCRIPT_SEM_ACQUIRE_SHA "e5227e864273feeab11cef5caa3b6b3b59248d32"
#define DL_SCRIPT_SEM_RELEASE_SHA "95c8e7a08fa2d6af7321bae852cc8082650a0851"
#define DL_SCRIPT_SEM_CANCEL_SHA "f33a527e1f55148026c9da6823439a8db93d584d"
#define DL_SCRIPT_SEM_REFRESH_SHA "2a5559f7e5a9e38c02f9c0402857e570f33374f9"
#define DL_SCRIPT_SEM_STATUS_SHA "da24647bf0f40c434b97520c7bad156a6b4224d3"
#define DL_SCRIPT_SEM_USAGE_SHA "80d6e8566340f746acbca0fc4997115b7730ec4f"
#define DL_SCRIPT_RW_WRITE_ACQUIRE_SHA "50c1ffb2cdeaef4e6c19965f147720ed2397c929"
#define DL_SCRIPT_RW_WRITE_RELEASE_SHA "dc6166014b9b12f787889ed9ae2fee00db63190c"
#define DL_SCRIPT_RW_WRITE_CANCEL_SHA "6064e3d0e0c2f45b22f2c6f319b546cf1d10c56c"
#define DL_SCRIPT_RW_WRITE_REFRESH_SHA "6c68c43b01eb0208ea43ec310a897dc98b6de561"
#define DL_SCRIPT_RW_WRITE_STATUS_SHA "9e1747e262ee9f5253d9aaed132bc2fd4c82a7f7"
#define DL_SCRIPT_RW_SHARED_ACQUIRE_SHA "6dd4a7916a804341a9b649697ad179c6e0cf9451"
#define DL_SCRIPT_RW_SHARED_RELEASE_SHA "6e2af7a83fc31741dee82451b5555d1f94968553"
#define DL_SCRIPT_RW_SHARED_CANCEL_SHA "cc92b09dbcc780c9f316f57ae47241d77676ec50"
#define DL_SCRIPT_RW_SHARED_REFRESH_SHA "c3d02297397201b2e42be167a8bc0dab4c2ef321"
#define DL_SCRIPT_RW_SHARED_STATUS_SHA "6d004718f70ce496dc9ad5a1a3cbd986934fc7d5"
#define DL_SCRIPT_RW_PROMOTE_SHA "b748e8f33e2ff8d9d6cb1cfab0b480ad1f375d60"
#define DL_SCRIPT_RW_DEMOTE_SHA "d13dbce954b1d947d4e59a53dc5780bacb09bbdf"
#define DL_SCRIPT_MULTI_RELEASE_SHA "837827f6716bce5a4274031a52ac897fd15854b1"
#define DL_SCRIPT_MULTI_ACQUIRE_SHA "f14e0c7c0ddf14ee44ecd947fe0cb99b67f2fa83"
#define DL_SCRIPT_INSPECT_SHA "c63b7b0092cecc04e0bc4f062817444c2ff9c653"
#define DL_SCRIPT_DEADLOCK_SHA "a6716269d2374b7966bf6725da356d8cbf5c9598"

#endif
