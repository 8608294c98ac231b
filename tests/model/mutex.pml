/*
 * mutex.pml — the mutex with waiting, default mode (no fencing, not fair,
 * one server, not Redis Cluster: cluster_ask.pml), as dl_lock_acquire and
 * dl_lock_release run it (src/core/lease/dl_acquire.c, dl_lock.c) with the
 * scripts of src/core/lease/dl_scripts.h. Each Promela step is named after
 * the Lua script or C function it abstracts; a script is one atomic step; two
 * pipelined commands are two steps (other clients' commands may run between).
 *
 * Server state (one name):
 *   K          owner of the lease key (0: absent); always written with PX (a TTL)
 *   q[i]       client i's entry in the waiters' ZSET Q: NONE, LIVE (expiry
 *              after now: counted by ZCOUNT) or STALE (expired, not pruned yet)
 *   Qttl       Q carries a TTL (PEXPIRE); Q exists while an entry does
 *   W, Wttl    the wake list's tokens (0 or 1: LTRIM) and whether it has a TTL
 *   blocked[i] client i's BLPOP W is blocked on the server
 *   popped[i]  ... and was served a wake token (the reply is on its way)
 * Client beliefs: vt[i] the validity of i's grant runs (from the send of the
 * attempt that granted, so from before the server's grant), holds[i] client
 * i believes it holds (read a grant, validity not over, not released).
 *
 * Time is not a clock (the process Env): a validity ends at any step; the
 * server expires K only after its holder's validity ended (the lease's
 * margin; -DEXPIRE_ANYTIME drops that assumption); a waiter's Q entry
 * expires only while its client is not waiting in lock() (a live waiter
 * registers again within 2 s + one reply grace, entries live 3 s); Q expires
 * once it has no live entry; a wake token expires only while nobody waits
 * (its TTL, 2 s, is far longer than a round trip).
 *
 * Options (-D):
 *   CLIENTS, ACQ    clients, lock() calls per client
 *   NATIVE          release by the native pair DELIFEQ + EXISTS Q, then the
 *                   wake script (release_native; else the release script)
 *   MIXED           each release either way (implies NATIVE): on a server with
 *                   native compare-and-delete, the deferred release of a
 *                   destroyed handle stays the script while explicit ones are
 *                   native (docs/decisions/0046-native-release-and-refresh.md),
 *                   so both meet on one name
 *   DEADLINES       a wait's deadline may pass at any step (cancel; the last
 *                   block carries nothing and is abandoned at the deadline)
 *   TIMED           blocks end by their timer at any step (else untimed:
 *                   only a wake token ends a block)
 *   CRASH           a client may die at any step (one per client)
 *   LOST            a reply may be lost after the server ran the command
 *                   (one per client): the undo by token, the retried release
 *   NOEXPIRE        leases never expire (the no-lost-wake-up runs: only a
 *                   release frees the name)
 *   EXPIRE_ANYTIME  the server may expire K while its holder's validity runs
 *   CLUSTER         Redis Cluster: the acquire script is carried behind the
 *                   BLPOP (carried_step keeps it where DL_CAP_CLUSTER is set)
 *   NOSCRIPT        scripting denied (implies NATIVE;
 *                   docs/decisions/0047-mutex-without-scripting.md): the
 *                   registration is
 *                   try_register_plain's pipeline MULTI, ZADD Q, PEXPIRE Q,
 *                   EXEC, SET NX PX GET, PTTL K (then ZREM Q when granted;
 *                   the transaction is one step); the cancel is
 *                   cancel_plain (ZREM Q, EXISTS K, EXISTS Q, the plain wake);
 *                   release_native's "not ours" is the answer (no script); the
 *                   wake is dl_lock_wake's plain MULTI, RPUSH W, LTRIM W 0 0,
 *                   PEXPIRE W, EXEC (one step)
 *   PIPE_CUT        (with NOSCRIPT, CRASH) a crash may also fall between two
 *                   commands of one pipeline (else only before a pipeline: one
 *                   that reached the server in one read runs whole)
 *   REFRESH         a holder renews its lease (refresh() or the watchdog's
 *                   renewal: dl_lock_refresh) up to REFRESHES times (default
 *                   1) before release, sent whether or not its validity still
 *                   runs (a late watchdog tick): the owner-checked extension,
 *                   DL_SCRIPT_REFRESH or under -DNATIVE the native SET K token
 *                   IFEQ token PX ttl (native_refresh_cmd), one step either
 *                   way. Extended: the validity counts anew from the send;
 *                   "not ours": the lease is lost; a lost reply: the validity
 *                   stays what it was (it may have run or not)
 * Broken variants (each one step away from the real protocol; .checks):
 *   BROKEN_RELEASE_NO_OWNER   DL_SCRIPT_RELEASE without its owner check
 *   BROKEN_NATIVE_ORDER       EXISTS Q before DELIFEQ (release_native's pair)
 *   BROKEN_NO_REREGISTER      a carried SET that failed is followed by the
 *                             next block, not by the acquire script
 *   BROKEN_CANCEL_NO_PASS     DL_SCRIPT_CANCEL does not pass on a wake token
 *   BROKEN_BLOCK_FOREVER      BLPOP with timeout 0 (forever)
 *   BROKEN_REBLOCK            a block that carried nothing and timed out is
 *                             followed by another block, not by an attempt
 *   BROKEN_WAKE_NO_TTL        DL_SCRIPT_RELEASE pushes without PEXPIRE W
 *   BROKEN_CLUSTER_PLAIN      (with CLUSTER) the plain SET + ZREM carried on a
 *                             Cluster: a migration's ASK runs them before the
 *                             BLPOP blocks on the target
 *   BROKEN_NOSCRIPT_DEL       (NOSCRIPT) release_native's compare-and-delete
 *                             (native_del_cmd) as a plain DEL K
 *   BROKEN_NOSCRIPT_SET_FIRST (NOSCRIPT) try_register_plain's SET before its
 *                             ZADD Q (cmds[] = {SET, ZADD, PEXPIRE, PTTL})
 *   BROKEN_NOSCRIPT_WAKE_NO_TTL (NOSCRIPT) dl_lock_wake's plain wake without
 *                             its PEXPIRE W
 *   BROKEN_NOSCRIPT_NO_MULTI  (NOSCRIPT, PIPE_CUT) the registration's ZADD Q +
 *                             PEXPIRE Q and the wake's RPUSH + LTRIM + PEXPIRE
 *                             without MULTI/EXEC (as first written: the gap
 *                             this model found, fixed in the code)
 *   BROKEN_REFRESH_NO_OWNER   (REFRESH) the refresh without its owner check:
 *                             DL_SCRIPT_REFRESH as a plain PEXPIRE K (1 when K
 *                             exists, whoever holds it); under NATIVE,
 *                             native_refresh_cmd without IFEQ token: SET K
 *                             token PX ttl (OK always: K taken over)
 *   BROKEN_REFRESH_LOST_EXTENDS (REFRESH, LOST) dl_lock_refresh extends the
 *                             validity on a lost reply (as if "*extended = st
 *                             == DL_OK && r == 1" were "st != DL_OK || r == 1")
 */
#ifdef NOSCRIPT
#define NATIVE
#endif
#ifdef MIXED
#define NATIVE
#endif
/* bounds: CLIENTS ACQ REFRESHES */
#ifndef CLIENTS
#define CLIENTS 3
#endif
#if CLIENTS != 3
#error "mutex.pml is written for 3 clients (its macros and Env list them)"
#endif
#ifndef ACQ
#define ACQ 1
#endif
#ifndef FAULTS
#define FAULTS 1
#endif
#ifndef REFRESHES
#define REFRESHES 1
#endif

#define N CLIENTS
#define NONE 0
#define LIVE 1
#define STALE 2

#ifdef CRASH
#define CRASH_ON 1
#else
#define CRASH_ON 0
#endif
#ifdef LOST
#define LOST_ON 1
#else
#define LOST_ON 0
#endif
#ifdef DEADLINES
#define DEADLINE_ON 1
#else
#define DEADLINE_ON 0
#endif
#ifdef TIMED
#define TIMED_ON 1
#else
#define TIMED_ON 0
#endif

byte K = 0;
byte q[N + 1];
bool Qttl = 0;
byte W = 0;
bool Wttl = 0;
bool blocked[N + 1];
bool popped[N + 1];
bool vt[N + 1];
bool holds[N + 1];
bool waiting[N + 1];          /* client i is inside lock() (its entry is kept live) */
byte nholding = 0;            /* clients that believe they hold */
byte ndone = 0;               /* client processes ended (returned or died) */
bool gsince[N + 1];           /* a grant happened since client i's last block began */
byte faults = FAULTS;         /* crashes and lost replies left to inject (all clients) */

#define Qexists (q[1] != NONE || q[2] != NONE || q[3] != NONE)
#define Qlive   (q[1] == LIVE || q[2] == LIVE || q[3] == LIVE)
#define anyone_waiting (waiting[1] || waiting[2] || waiting[3])

/* Redis serves a blocked BLPOP at the end of the command or script that
 * pushed (handleClientsBlockedOnKeys), before any other client's command;
 * which blocked client is left open (Redis: the longest blocked; any order
 * is a superset). */
inline serve_blocked() {
    if
    :: W > 0 && blocked[1] -> W--; blocked[1] = 0; popped[1] = 1
    :: W > 0 && blocked[2] -> W--; blocked[2] = 0; popped[2] = 1
    :: W > 0 && blocked[3] -> W--; blocked[3] = 0; popped[3] = 1
    :: else -> skip
    fi
}

/* A grant on the server; the client reads it in the same step (nothing
 * another client does can tell the two apart): it believes it holds while
 * the validity runs, which started at the attempt's send, before this step. */
inline grant(me) {
    K = me; vt[me] = 1; gsince[1] = 1; gsince[2] = 1; gsince[3] = 1
}
inline believe(me) {
    holds[me] = 1; nholding++;
    assert(nholding <= 1)      /* mutual exclusion over what clients believe */
}

/* A dead client's connection: whatever it sent later never runs. */
#define CRASH_CHOICE \
    if :: CRASH_ON && faults > 0 -> faults--; goto crash :: true -> skip fi
/* A reply lost after the server ran the command (or the connection broken). */
#define LOST_CHOICE (LOST_ON && faults > 0)

/* try_set: SET K token NX PX ttl (the first attempt, plain; registers nobody);
 * also the SET carried behind a BLPOP (carried_step). */
inline set_nx(me, got) {
    if
    :: K == 0 -> grant(me); got = 1
    :: else -> got = 0
    fi
}

/* DL_SCRIPT_ACQUIRE (try_script): SET NX PX (and leave Q), or enter Q
 * (ZADD, dropping the expired entries) with Q's TTL. */
inline acquire_script(me, got) {
    if
    :: K == 0 -> grant(me); q[me] = NONE; got = 1
    :: else ->
       q[1] = (q[1] == STALE -> NONE : q[1]);
       q[2] = (q[2] == STALE -> NONE : q[2]);
       q[3] = (q[3] == STALE -> NONE : q[3]);
       q[me] = LIVE; Qttl = 1; got = 0
    fi
}

/* The wake half of DL_SCRIPT_RELEASE, and DL_SCRIPT_WAKE: when a live waiter
 * is in Q (ZCOUNT from now + 1), one wake token (RPUSH, LTRIM) with W's TTL. */
inline wake_if_waiters() {
    if
    :: Qlive ->
#ifndef BROKEN_WAKE_NO_TTL
       Wttl = 1;
#else
       /* breaks DL_SCRIPT_RELEASE's "call('PEXPIRE', KEYS[2], ARGV[2])":
        * a new W has no TTL */
       Wttl = (W > 0 -> Wttl : 0);
#endif
       W = 1;
       serve_blocked()
    :: else -> skip
    fi
}

/* DL_SCRIPT_RELEASE (also prim->undo: the release by token). */
inline release_script(me) {
#ifndef BROKEN_RELEASE_NO_OWNER
    if
    :: K == me -> K = 0; wake_if_waiters()
    :: else -> skip   /* 0: another owner; -1: gone */
    fi
#else
    /* breaks DL_SCRIPT_RELEASE's "if v ~= ARGV[1] then ... end": deletes whoever holds */
    if
    :: K != 0 -> K = 0; wake_if_waiters()
    :: else -> skip
    fi
#endif
}

/* DL_SCRIPT_CANCEL: leave Q; the last one out removes W; while others still
 * wait and the name is free, pass a wake token on. */
inline cancel_script(me) {
    q[me] = NONE;
    if
    :: !Qexists -> W = 0
    :: Qexists && K != 0 -> skip
    :: Qexists && K == 0 ->
       q[1] = (q[1] == STALE -> NONE : q[1]);
       q[2] = (q[2] == STALE -> NONE : q[2]);
       q[3] = (q[3] == STALE -> NONE : q[3]);
       if
       :: !Qexists -> W = 0
       :: else ->
#ifndef BROKEN_CANCEL_NO_PASS
          W = 1; Wttl = 1; serve_blocked()
#else
          /* breaks DL_SCRIPT_CANCEL's "redis.call('RPUSH', KEYS[3], '1')": the wake-up is not passed on */
          skip
#endif
       fi
    fi
}

/* release_native's DELIFEQ K token (1 deleted, 0 not: "not ours" and "gone" alike). */
inline delifeq(me, v) {
#ifndef BROKEN_NOSCRIPT_DEL
    if :: K == me -> K = 0; v = 1 :: else -> v = 0 fi
#else
    /* breaks native_del_cmd's "DELIFEQ K token" (or DELEX K IFEQ token): DEL K */
    if :: K != 0 -> K = 0; v = 1 :: else -> v = 0 fi
#endif
}

/* A crash between two commands of one pipeline (-DPIPE_CUT). */
#ifdef PIPE_CUT
#define CUT_CHOICE CRASH_CHOICE
#else
#define CUT_CHOICE skip
#endif

/* dl_lock_wake where scripting is denied: RPUSH W 1, LTRIM W 0 0, PEXPIRE W
 * (one pipeline; RPUSH serves a blocked BLPOP at once). RPUSH on an absent W
 * makes one without a TTL. Pushed whenever Q exists: nothing tells live
 * entries from stale ones without a script. */
inline wake_plain() {
#ifndef BROKEN_NOSCRIPT_NO_MULTI
    /* MULTI, RPUSH, LTRIM, PEXPIRE, EXEC: one transaction, one step; a BLPOP
     * blocked on W is served once EXEC has run, with the one token left */
#ifndef BROKEN_NOSCRIPT_WAKE_NO_TTL
    atomic { CRASH_CHOICE; W = 1; Wttl = 1; serve_blocked() }
#else
    /* breaks dl_lock_wake's PEXPIRE W (cmds[3]): a new W has no TTL */
    atomic { CRASH_CHOICE; Wttl = (W > 0 -> Wttl : 0); W = 1; serve_blocked() }
#endif
#else
    /* breaks dl_lock_wake's MULTI/EXEC (cmds[0], cmds[4]): three commands a cut
     * connection can split */
    atomic { CRASH_CHOICE; Wttl = (W > 0 -> Wttl : 0); W++; serve_blocked() }
    atomic { CUT_CHOICE; W = (W > 0 -> 1 : 0) }
    atomic { CUT_CHOICE; Wttl = (W > 0 -> 1 : Wttl) }
#endif
}

/* cancel_plain: ZREM Q token, EXISTS K, EXISTS Q (one pipeline); when the name
 * is free and Q exists, the plain wake (passes on a token our dropped BLPOP
 * may have taken). */
inline cancel_plain(me) {
    atomic { CRASH_CHOICE; q[me] = NONE }
    atomic { CUT_CHOICE; k = (K != 0) }
    atomic { CUT_CHOICE; w = Qexists }
    if :: !k && w -> wake_plain() :: else -> skip fi;
    w = 0
}

/* The undo of a grant that may have happened (undo_quietly): the native
 * compare-and-delete where the server has one (dl_lock_undo_native: DELIFEQ
 * or DELEX IFEQ K token, no wake: a waiter's block ends by its timer), else
 * the release script. After a round trip's timeout it is written, not awaited
 * (dl_call_bound_close): it runs later on the same connection, before that
 * client's next command, or never (a crash) -- the step below, at any later
 * point of the interleaving, or CRASH_CHOICE. */
inline undo(me) {
#ifdef NATIVE
    delifeq(me, v)
#else
    release_script(me)
#endif
}

/* dl_lock_refresh's server step: v = 1 extended, 0 not ours (or gone).
 * DL_SCRIPT_REFRESH: "if GET K == token then PEXPIRE K ttl"; natively
 * (native_refresh_cmd, Redis >= 8.4, Valkey >= 8.1) SET K token IFEQ token PX
 * ttl: OK or nil. Both one command: one step; both set K's TTL from now, after
 * the send the client's new validity counts from (the lease's margin holds). */
inline refresh_cmd(me, v) {
#ifndef BROKEN_REFRESH_NO_OWNER
    if :: K == me -> v = 1 :: else -> v = 0 fi
#elif !defined(NATIVE)
    /* breaks DL_SCRIPT_REFRESH's "if v == ARGV[1] then": a plain PEXPIRE K
     * ttl, which extends whoever holds K (1 when K exists) */
    if :: K != 0 -> v = 1 :: else -> v = 0 fi
#else
    /* breaks native_refresh_cmd's "IFEQ token": SET K token PX ttl, which
     * takes K over from whoever holds it (OK always) */
    K = me; v = 1
#endif
}

/* Validity ends, expiries: at any step (see the top). */
active proctype Env() {
end:
    do
    :: atomic { vt[1] -> vt[1] = 0; if :: holds[1] -> holds[1] = 0; nholding-- :: else -> skip fi }
    :: atomic { vt[2] -> vt[2] = 0; if :: holds[2] -> holds[2] = 0; nholding-- :: else -> skip fi }
    :: atomic { vt[3] -> vt[3] = 0; if :: holds[3] -> holds[3] = 0; nholding-- :: else -> skip fi }
#ifndef NOEXPIRE
#ifndef EXPIRE_ANYTIME
    :: atomic { K != 0 && !vt[K] -> K = 0 }     /* K's TTL ends after its holder's validity */
#else
    :: atomic { K != 0 -> K = 0 }               /* no margin: K may end while its holder believes */
#endif
#endif
    :: atomic { q[1] == LIVE && !waiting[1] -> q[1] = STALE }
    :: atomic { q[2] == LIVE && !waiting[2] -> q[2] = STALE }
    :: atomic { q[3] == LIVE && !waiting[3] -> q[3] = STALE }
    :: atomic { Qexists && !Qlive && Qttl -> q[1] = NONE; q[2] = NONE; q[3] = NONE }
    :: atomic { W > 0 && Wttl && !anyone_waiting -> W = 0 }
    od
}


/*
 * One client: ACQ calls of lock() (dl_lock_acquire), each followed, when
 * granted, by release() (dl_lock_release). Each atomic block is one server
 * step with what the client does with its reply up to its next command.
 */
proctype Client(byte me) {
    byte acq = 0;
    bool got, reconnected, at_deadline, v, w, lost, blk_free, ask, k;
#ifdef REFRESH
    byte nref;
#endif

next_lock:
    atomic {
        if
        :: acq == ACQ -> goto done
        :: else -> acq++
        fi;
        waiting[me] = 1; reconnected = 0; blk_free = 0; got = 0; v = 0; w = 0; lost = 0;
        CRASH_CHOICE;
        set_nx(me, got);                        /* try_set: SET NX PX */
        if
        :: LOST_CHOICE -> faults--; vt[me] = 0; goto undo_and_fail   /* transport failure: undo */
        :: true -> skip
        fi;
        if :: got -> goto granted :: else -> skip fi
        /* taken: the script next, at once (it registers us) */
    }
attempt:
#ifdef NOSCRIPT
    /* try_register_plain: ZADD Q <now+3000> token, PEXPIRE Q 3000, SET K token
     * NX PX ttl GET, PTTL K (one pipeline; PTTL only reads). The entry goes in
     * before the SET looks at K. ZADD makes a new Q without a TTL. */
#if defined(BROKEN_NOSCRIPT_SET_FIRST)
    /* breaks try_register_plain's cmds[] order: the SET before the ZADD */
    atomic { CRASH_CHOICE; set_nx(me, got) }
    atomic { CUT_CHOICE; q[me] = LIVE; Qttl = 1 }
#elif defined(BROKEN_NOSCRIPT_NO_MULTI)
    /* breaks try_register_plain's MULTI/EXEC around ZADD Q and PEXPIRE Q
     * (cmds[0], cmds[3]): a cut between them leaves a new Q without a TTL */
    atomic { CRASH_CHOICE; Qttl = (Qexists -> Qttl : 0); q[me] = LIVE }
    atomic { CUT_CHOICE; Qttl = (Qexists -> 1 : Qttl) }
    atomic { CUT_CHOICE; set_nx(me, got) }
#else
    /* MULTI, ZADD Q, PEXPIRE Q, EXEC: one transaction, one step */
    atomic { CRASH_CHOICE; q[me] = LIVE; Qttl = 1 }
    atomic { CUT_CHOICE; set_nx(me, got) }
#endif
    atomic {
        if
        :: LOST_CHOICE -> faults--; vt[me] = 0; goto undo_and_fail   /* no cancel: the entry is left to Q's TTL */
        :: true -> skip
        fi;
        if :: got -> skip :: else -> goto not_granted fi
    }
    atomic { CRASH_CHOICE; q[me] = NONE; goto granted }   /* granted: ZREM Q token (best effort) */
#endif
    atomic {
        CRASH_CHOICE;
        acquire_script(me, got);                /* try_script: DL_SCRIPT_ACQUIRE */
        if
        :: LOST_CHOICE -> faults--; vt[me] = 0; goto undo_and_fail   /* no cancel: the entry is left to its TTL */
        :: true -> skip
        fi;
        if :: got -> goto granted :: else -> skip fi;
not_granted:
        if
        :: DEADLINE_ON -> goto give_up          /* remaining_us <= 0: cancel */
        :: true -> skip
        fi
    }
    /* ---- block_on_then: BLPOP W, with the attempt carried behind it ---- */
block:
    atomic {
        CRASH_CHOICE;
        at_deadline = 0;
        if
        :: DEADLINE_ON -> at_deadline = 1       /* a block that may end at the deadline carries nothing */
        :: true -> skip
        fi;
#ifdef BROKEN_CLUSTER_PLAIN
        /* breaks carried_step's "!(t->caps(t->impl) & DL_CAP_CLUSTER)": the
         * plain SET + ZREM carried on Redis Cluster. While the name's slot
         * migrates, the source answers the BLPOP with ASK (W is not there)
         * but runs the SET and the ZREM (K and Q are); the BLPOP, sent again
         * with ASKING, blocks on the target after them. */
        ask = 0;
        if
        :: !at_deadline -> ask = 1
        :: true -> skip
        fi
    }
    if
    :: ask ->
       atomic { set_nx(me, got) };              /* SET K token NX PX, on the source */
       atomic { q[me] = NONE }                  /* ZREM Q token, on the source */
    :: else -> skip
    fi;
    atomic {
#endif
        if                                      /* BLPOP W */
        :: W > 0 -> W--; popped[me] = 1
        :: else -> blocked[me] = 1
        fi;
        /* The bounded wait: a block that only its timer can end (the name
         * free, no token) started while the name has stayed free, no grant
         * between, since before our previous block began: a second block. */
        if
        :: K == 0 && W == 0 && !popped[me] ->
           assert(!(blk_free && !gsince[me]));
           blk_free = 1; gsince[me] = 0
        :: else -> blk_free = 0
        fi
    }
    /* how the block ends */
    if
    :: atomic { popped[me] -> popped[me] = 0; if :: at_deadline -> goto attempt :: else -> skip fi }
#if !defined(BROKEN_BLOCK_FOREVER) && !defined(BROKEN_REBLOCK)
    :: atomic { TIMED_ON && blocked[me] -> blocked[me] = 0; if :: at_deadline -> goto attempt :: else -> skip fi }
#elif defined(BROKEN_REBLOCK)
    /* breaks dl_lock_acquire's "continue" after a block that carried nothing
     * and timed out before the deadline (the next attempt): blocks again */
    :: atomic { TIMED_ON && blocked[me] -> blocked[me] = 0; if :: at_deadline -> goto block :: else -> skip fi }
#else
       /* breaks block_on_then's BLPOP timeout (argv[1 + n] = secs, from
        * dl_block_time_us): "BLPOP W 0", which blocks until a token comes */
#endif
#ifdef CLUSTER
    /* A waiter granted by what it carried, its BLPOP still blocked (on the
     * target): its timer ends it (one block), as for any holder's wait. */
    :: atomic { blocked[me] && K == me -> blocked[me] = 0 }
#endif
    :: atomic { at_deadline && blocked[me] -> blocked[me] = 0; goto give_up }
       /* the deadline: the connection is dropped, which ends the BLPOP on the
        * server; the cancel follows on a new connection */
    :: atomic { at_deadline && popped[me] -> popped[me] = 0; goto give_up }   /* served, the deadline came first */
    :: atomic { CRASH_ON && faults > 0 && blocked[me] -> faults--; blocked[me] = 0; goto crash }
    :: atomic { CRASH_ON && faults > 0 && popped[me] -> faults--; popped[me] = 0;
                if :: at_deadline -> goto crash :: else -> goto crash_carried fi }
    :: atomic { LOST_ON && faults > 0 && !at_deadline && blocked[me] -> faults--; blocked[me] = 0; goto broken_connection }
    :: atomic { LOST_ON && faults > 0 && !at_deadline && popped[me] -> faults--; popped[me] = 0; goto broken_connection }
    fi;
#if defined(CLUSTER) && !defined(BROKEN_CLUSTER_PLAIN)
    /* Redis Cluster (DL_CAP_CLUSTER): the acquire script is carried, not the
     * plain pair. While the slot migrates the source refuses it (TRYAGAIN:
     * some of K, F, Q are not there) and it is sent again after the BLPOP
     * returns; either way it runs after the BLPOP, as one step. */
    atomic {
        if
        :: CRASH_ON && faults > 0 -> faults--; goto crash
        :: true -> skip
        fi;
        acquire_script(me, got);
        if :: got -> goto granted :: else -> goto not_granted fi
    }
#endif
#ifdef BROKEN_CLUSTER_PLAIN
    if
    :: ask -> ask = 0; if :: got -> goto granted :: else -> goto attempt fi   /* ran before the BLPOP */
    :: else -> skip
    fi;
#endif
    /* what was carried behind the BLPOP runs: SET K token NX PX, then ZREM Q
     * token (carried_step; two pipelined commands) */
    atomic {
        if
        :: CRASH_ON && faults > 0 -> faults--; goto crash_carried
        :: true -> skip
        fi;
        set_nx(me, got)
    }
    atomic {
        CRASH_CHOICE;
        q[me] = NONE;                           /* ZREM Q token */
        if
        :: LOST_CHOICE -> faults--; vt[me] = 0; goto broken_connection
        :: true -> skip
        fi;
        if :: got -> goto granted :: else -> skip fi;
#ifndef BROKEN_NO_REREGISTER
        goto attempt                            /* judge_carried_set: taken: script_now */
#else
        /* breaks dl_lock_acquire's "if (!by_script || script_now)": a carried
         * SET that found the name taken is followed by the next block, not by
         * the script that registers us again */
        goto not_granted
#endif
    }

broken_connection:
    /* the connection broke while blocked (behind_sent): the undo, the cancel, then once a fresh attempt */
    atomic { CRASH_CHOICE; undo(me) }
#ifdef NOSCRIPT
    cancel_plain(me);
    atomic {
        if
        :: !reconnected -> reconnected = 1; goto attempt
        :: else -> waiting[me] = 0; goto next_lock
        fi
    }
#endif
    atomic {
        CRASH_CHOICE;
        cancel_script(me);
        if
        :: !reconnected -> reconnected = 1; goto attempt
        :: else -> waiting[me] = 0; goto next_lock
        fi
    }

undo_and_fail:
    atomic { CRASH_CHOICE; undo(me); waiting[me] = 0; goto next_lock }   /* undo_quietly */

give_up:
#ifdef NOSCRIPT
    cancel_plain(me);
    atomic { waiting[me] = 0; goto next_lock }
#endif
    atomic { CRASH_CHOICE; cancel_script(me); waiting[me] = 0; goto next_lock }    /* cancel_quietly */

granted:
    atomic { waiting[me] = 0; if :: vt[me] -> believe(me) :: else -> skip fi }
#ifdef REFRESH
    /* ---- refresh() / the watchdog's renewal (dl_lock_refresh), then release ---- */
    nref = 0;
    do
    :: nref < REFRESHES ->
       nref++;
       atomic {
           CRASH_CHOICE;
           refresh_cmd(me, v);                  /* DL_SCRIPT_REFRESH, or SET K token IFEQ token PX ttl */
           if
           :: LOST_CHOICE -> faults--;          /* the reply lost: it ran (v) or not, unknown */
#ifndef BROKEN_REFRESH_LOST_EXTENDS
              skip                              /* *extended = 0: the validity stays as it was */
#else
              /* breaks dl_lock_refresh's "*extended = st == DL_OK && r == 1":
               * a lost reply taken as extended */
              vt[me] = 1; if :: !holds[me] -> believe(me) :: else -> skip fi
#endif
           :: true ->
              if
              :: v -> vt[me] = 1;               /* extended: valid_until_ns = sent_ns + ttl */
                 if :: !holds[me] -> believe(me) :: else -> skip fi
              :: else -> vt[me] = 0;            /* not ours: the lease is lost */
                 if :: holds[me] -> holds[me] = 0; nholding-- :: else -> skip fi
              fi
           fi;
           v = 0
       }
    :: true -> break
    od;
#endif
    /* ---- the critical section, then dl_lock_release ---- */
#ifdef MIXED
    if
    :: true ->                                  /* the release script (a deferred release) */
#endif
#if !defined(NATIVE) || defined(MIXED)
    atomic {
        CRASH_CHOICE;
        if :: holds[me] -> holds[me] = 0; nholding-- :: else -> skip fi; vt[me] = 0;
        release_script(me);                     /* DL_SCRIPT_RELEASE */
        if
        :: LOST_CHOICE -> faults--; lost = 1    /* the reply lost: sent again (idempotent) */
        :: true -> skip
        fi
    }
    if
    :: lost -> atomic { release_script(me); lost = 0 }
    :: else -> skip
    fi;
#endif
#ifdef MIXED
    :: true ->                                  /* release_native */
#endif
#ifdef NATIVE
    atomic {
        CRASH_CHOICE;
        if :: holds[me] -> holds[me] = 0; nholding-- :: else -> skip fi; vt[me] = 0;
#ifndef BROKEN_NATIVE_ORDER
        delifeq(me, v)                          /* DELIFEQ K token */
    }
    atomic {
        w = Qexists;                            /* EXISTS Q, pipelined behind it */
#else
        /* breaks release_native's order of cmds[2] = {DELIFEQ, EXISTS}: EXISTS Q first */
        w = Qexists
    }
    atomic {
        delifeq(me, v);
#endif
        if
        :: LOST_CHOICE -> faults--; lost = 1    /* the pair's replies lost: the pair again */
        :: true -> skip
        fi
    }
    if
    :: lost -> atomic { delifeq(me, v) }; atomic { w = Qexists }
    :: else -> skip
    fi;
    atomic {
        CRASH_CHOICE;
        if
#ifndef NOSCRIPT
        :: v == 0 -> release_script(me)         /* not ours, or gone: the script says which */
#endif
        :: else -> skip
        fi
    }
    /* released && waiters: the wake. After a lost reply, released is true
     * while the lease's validity runs (dl_lock_release), else "lost" and no
     * wake: either may be the case here. */
    if
#ifndef NOSCRIPT
    :: (v == 1 || lost) && w -> atomic { CRASH_CHOICE; wake_if_waiters() }   /* DL_SCRIPT_WAKE */
#else
    :: (v == 1 || lost) && w -> wake_plain()   /* dl_lock_wake: the plain wake */
#endif
    :: lost && w -> skip
    :: else -> skip
    fi;
    v = 0; w = 0; lost = 0;
#endif
#ifdef MIXED
    fi;
#endif
    goto next_lock;

crash_carried:
    /* a BLPOP that had returned runs what is behind it before the server
     * sees the close, or a part of it, or nothing: a SET that runs grants a
     * lease nobody will use (left to its TTL) */
    if
    :: atomic { set_nx(me, got) }; if :: q[me] = NONE :: skip fi
    :: skip
    fi;
crash:
    atomic {
        if :: holds[me] -> holds[me] = 0; nholding-- :: else -> skip fi;
        vt[me] = 0; waiting[me] = 0; blocked[me] = 0; popped[me] = 0; got = 0
    }
done:
    atomic {
        ndone++;
        /* Bounded state: once every client is done (returned or dead), each
         * key the protocol wrote is gone or carries a TTL (K: always PX). */
        if
        :: ndone == N -> assert(!Qexists || Qttl); assert(W == 0 || Wttl)
        :: else -> skip
        fi
    }
}

init {
    atomic { run Client(1); run Client(2); run Client(3) }
}
