/*
 * multi.pml — the multi-lock (all names or none, one script), the
 * multi-release (DL_SCRIPT_MULTI_RELEASE; releaseAll() and the request-end
 * sweep, php_distlock_registry_release_all -> dl_script_run_many: one
 * release script per lease, pipelined) and the deferred release (written,
 * not awaited: dl_lock_release_deferred; its reply read late, or lost and the
 * release sent again by EVAL before the next command: deferred_release_outcome).
 *
 * Bounds: N = 3 clients, 2 names (A = 0, B = 1). Client 0 takes {A, B} by
 * the multi-lock and ends by the request-end sweep (two pipelined release
 * scripts); client 1 takes {A, B} and releases by the multi-release script;
 * client 2 takes B alone, releases it deferred, then takes B again (a new
 * token) and releases it deferred. Tries only: the multi-lock's waiting (its
 * registration in each name's waiters) is not modelled here.
 *
 * Server: owner[n] = the client whose token K holds (0: absent), gen[n] its
 * acquisition (client 2's two tokens differ). A lease ends on the server
 * only after its holder's validity ended. A crash is a choice at every step;
 * a lost reply is a choice after every command (the undo by token; a release
 * sent again).
 *
 * Properties: ALL-OR-NONE: the multi-lock script leaves all its names taken
 * by it or none (assert in the step); OWNER: whoever believes it holds a
 * name is its owner on the server, so no release (late, lost and re-sent, or
 * pipelined) deletes another holder's lease (assert after every step that
 * can delete).
 *
 * Broken variants (each one step):
 *   BREAK_UNDO      DL_SCRIPT_MULTI_ACQUIRE without `for i = 1, got do
 *                   call('DEL', KEYS[s * i - s + 1]) end`: a partial grant stays.
 *   BREAK_RELEASE   DL_SCRIPT_RELEASE without its owner check (`if v ~= ARGV[1]
 *                   then ... return 0 end`): the re-sent deferred release
 *                   deletes another holder's lease.
 *   BREAK_MRELEASE  DL_SCRIPT_MULTI_RELEASE without `if redis.pcall('GET', k)
 *                   == ARGV[i]`.
 */
/* bounds: N */
#define N 3
#define NAMES 2
#define LOSSY true
#define CRASHY true

byte owner[NAMES];   /* 0 free, c + 1 */
bit gen[NAMES];      /* which acquisition of its owner */
bool v[6];           /* v[c * 2 + n]: client c believes it holds name n */
byte ndone;

#define V(c, n) v[(c) * 2 + (n)]

/* OWNER: a believed lease is the server's: nobody deleted it under us. */
inline owner_ok() {
    assert((!V(0, 0) || owner[0] == 1) && (!V(0, 1) || owner[1] == 1) &&
           (!V(1, 0) || owner[0] == 2) && (!V(1, 1) || owner[1] == 2) &&
           (!V(2, 1) || owner[1] == 3))
}

/* DL_SCRIPT_MULTI_ACQUIRE (a try): SET NX each name in turn; one taken: DEL those set. */
inline multi_acquire(c, g) {
    atomic {
        g = false;
        if
        :: owner[0] == 0 && owner[1] == 0 ->
            owner[0] = c + 1; owner[1] = c + 1; gen[0] = 0; gen[1] = 0;
            V(c, 0) = true; V(c, 1) = true; g = true
        :: owner[0] == 0 && owner[1] != 0 ->          /* A set, B taken */
#ifdef BREAK_UNDO
            owner[0] = c + 1; gen[0] = 0
#else
            skip                                       /* SET A; DEL A */
#endif
        :: owner[0] != 0 -> skip                       /* A taken: nothing set */
        fi;
        /* ALL-OR-NONE: not granted, none of the names is ours by this script */
        assert(g || (owner[0] != c + 1 && owner[1] != c + 1))
    }
}

/* DL_SCRIPT_RELEASE of name n with token (c, t): compare-and-delete. */
inline release_one(c, n, t) {
    atomic {
        if
#ifdef BREAK_RELEASE
        :: true -> owner[n] = 0
#else
        :: owner[n] == c + 1 && gen[n] == t -> owner[n] = 0
        :: else -> skip
#endif
        fi;
        owner_ok()
    }
}

/* DL_SCRIPT_MULTI_RELEASE of both names, c's tokens. */
inline multi_release(c) {
    atomic {
#ifdef BREAK_MRELEASE
        owner[0] = 0; owner[1] = 0;
#else
        if :: owner[0] == c + 1 -> owner[0] = 0 :: else fi;
        if :: owner[1] == c + 1 -> owner[1] = 0 :: else fi;
#endif
        owner_ok()
    }
}

/* SET K token NX PX (client 2's lock of B, a try), acquisition t */
inline set_nx(c, n, t, g) {
    atomic {
        if
        :: owner[n] == 0 -> owner[n] = c + 1; gen[n] = t; V(c, n) = true; g = true
        :: else -> g = false
        fi
    }
}

/* What a client does when its lease may be gone: nothing believed. */
inline forget(c) { atomic { V(c, 0) = false; V(c, 1) = false } }

/* clients 0 and 1: the multi-lock, then a multi-release (1) or the request-end sweep (0) */
proctype multi(byte c) {
    bool g;
    multi_acquire(c, g);
    if
    :: true
    :: LOSSY -> forget(c);                            /* ambiguous: run_each_quietly(release) */
        if :: release_one(c, 0, 0) :: skip fi;
        if :: release_one(c, 1, 0) :: skip fi;
        goto done
    :: CRASHY -> goto crash
    fi;
    if :: !g -> goto done :: else fi;
    do
    :: atomic { V(c, 0) = false; V(c, 1) = false }    /* validity ends */
    :: break
    :: CRASHY -> goto crash
    od;
    forget(c);                                        /* the call is made: its result not relied on */
    if
    :: c == 0 ->                                      /* request end: dl_script_run_many, pipelined */
        release_one(c, 0, 0);
        release_one(c, 1, 0);
        if :: LOSSY -> release_one(c, 0, 0); release_one(c, 1, 0) :: true fi   /* DL_RETRY_ANY */
    :: c == 1 ->                                      /* dl_multi_release */
        multi_release(c);
        if :: LOSSY -> multi_release(c) :: true fi
    fi;
    goto done;
crash:
    forget(c);
done:
    ndone++
}

/* client 2: B alone, twice, each released deferred */
proctype single(byte c) {
    bool g;
    bit t = 0;
again:
    set_nx(c, 1, t, g);
    if
    :: true
    :: LOSSY -> forget(c); if :: release_one(c, 1, t) :: skip fi; goto next
    :: CRASHY -> goto crash
    fi;
    if :: !g -> goto next :: else fi;
    do
    :: atomic { V(c, 1) = false }
    :: break
    :: CRASHY -> goto crash
    od;
    forget(c);
    /* dl_lock_release_deferred: written now; it runs, or is lost with its
     * connection before it ran; its reply read before the next command, or
     * lost: then sent again by EVAL before that command (deferred_release_outcome) */
    if
    :: release_one(c, 1, t);
        if :: true :: LOSSY -> release_one(c, 1, t) fi
    :: LOSSY -> release_one(c, 1, t)
    fi;
next:
    if :: t == 0 -> t = 1; goto again :: else fi;
    goto done;
crash:
    forget(c);
done:
    ndone++
}

/* Time: a name's lease ends once its holder's validity ended. */
#define ENDS(c, n) :: atomic { owner[n] == c + 1 && !V(c, n) -> owner[n] = 0 }
active proctype expiry() {
end:
    do
    ENDS(0, 0) ENDS(0, 1) ENDS(1, 0) ENDS(1, 1) ENDS(2, 1)
    od
}

init {
    atomic { run multi(0); run multi(1); run single(2) };
    ndone == N
}
