<?php

/**
 * Stub of the distlock extension: the source of truth for the generated
 * distlock_arginfo.h (scripts/gen-stub) and the IDE stub for users.
 * Durations are float seconds everywhere. Semantics: README.md and
 * docs/decisions/README.md.
 *
 * @generate-class-entries
 * @generate-legacy-arginfo 80100
 */

namespace {
    /**
     * A client for distributed locks on one Redis server. The owner of a lock
     * is the DistLock instance (reentrancy: the same instance locking a name it
     * holds gets another handle on the same lease).
     *
     * @strict-properties
     * @not-serializable
     */
    final class DistLock
    {
        /**
         * Validates the configuration; connects lazily, on the first call that needs Redis.
         *
         * @param string|array $servers one URI, or a list of URIs:
         *   redis://[[user]:password@]host[:port][/db][?timeout=S&connect_timeout=S],
         *   unix:///path/to/redis.sock[?db=N&timeout=S&connect_timeout=S],
         *   rediss://... (TLS; builds against hiredis >= 1.0 with hiredis_ssl, see phpinfo()).
         *   Values in the URI beat the same values in $options. A list of 3 to 64 URIs is
         *   Redlock over independent masters (redis.io "Distributed Locks with Redis": a grant
         *   needs N/2 + 1 of them, validity = ttl - elapsed - (ttl * 0.01 + 2 ms)); with option
         *   cluster, the URIs are seeds of a Redis Cluster; with option sentinel, they are the
         *   Sentinels (1 to 32) that say where the master is.
         * @param array $options prefix (string, default "lock:"), ttl (seconds, default 30),
         *   wait (seconds, default 10), retry_delay and retry_jitter (seconds, default 0.005;
         *   when the server refuses BLPOP and waits poll, and Redlock's random delay between
         *   attempts), connect_timeout and
         *   timeout (seconds, default 1), username, password (strings), database (int),
         *   resources (array: snake_case resource => ['ttl' => s, 'wait' => s]),
         *   watchdog (bool: renew held leases every ttl/3 in a background thread),
         *   max_hold (seconds, default 300: the watchdog's ceiling), on_lost ('ignore' |
         *   'throw': LockLostException at the next VM interrupt), fencing (bool),
         *   fair (bool: FIFO hand-over), deadlock_detection (bool, default true: a waiter that
         *   holds leases on the server carries the deadlock check, and a wait that closes a cycle
         *   of waits throws DeadlockException, not waited out; docs/deadlocks.md), persistent (bool |
         *   pool id string),
         *   defer_release (bool, default true, INI distlock.defer_release: the implicit
         *   releases, by destruction and at the end of synchronized(), are written without
         *   waiting for their reply, which is read before this instance's next command;
         *   false: every release is confirmed before the next line runs).
         *   TLS, rediss:// only: tls_ca (CA bundle file; default the system trust store),
         *   tls_ca_path (directory of hashed CA certificates), tls_cert and tls_key (client
         *   certificate and unencrypted key for mutual TLS, both or neither), tls_server_name
         *   (SNI and the name checked; default the URI's host), tls_verify_peer (bool, default
         *   true: certificate chain and host name are verified). Unreadable files are a
         *   ConnectionException at connect time, naming the option and the path.
         *   Topologies: cluster (bool: the URIs are Cluster seeds; TCP, database 0),
         *   sentinel (string: the master's name; username/password/database are then the
         *   master's), sentinel_username and sentinel_password (the Sentinels' own),
         *   min_replicas (int 0..1000: WAIT for that many replicas after each grant and
         *   refresh, in the same round trip) and replica_timeout (seconds, default 1).
         *   Defaults of the first seven come from the distlock.* INI settings.
         * @throws \ValueError for a malformed URI, an unknown option, a value out of range, a
         *   TLS option without rediss://, a list of 2 or of more than 64 URIs (without cluster or
         *   sentinel), one server twice in a Redlock list, or an option without a sound meaning
         *   in the topology (fencing, fair or min_replicas with Redlock; sentinel with cluster; a
         *   database other than 0 or a unix socket with cluster), each message saying why
         * @throws \TypeError for an option of the wrong type
         * @throws \DistLock\ConnectionException for rediss:// on a build without TLS (hiredis 0.14)
         */
        public function __construct(#[\SensitiveParameter] string|array $servers = "redis://127.0.0.1:6379", #[\SensitiveParameter] array $options = []) {}

        /**
         * Acquires $name, waiting up to $wait seconds. A waiter blocks on Redis (BLPOP) and
         * is woken by the holder's release (fair mode: handed the lock), or when the
         * holder's lease ends. Key: prefix . $name; value: a random token; PX ttl.
         *
         * @param string $name 1 to 1024 bytes, binary-safe
         * @param float|null $ttl lease length in seconds (> 0, at most 1e9; rounded up to ms); null: the default
         * @param float|null $wait seconds to wait (>= 0; 0 = one attempt); null: the default
         * @param string|null $token the owner token (the key's value), 1 to 128 bytes, binary-safe;
         *   null: a fresh random one. A key already holding this token (another process, or a lease
         *   detached earlier) is held like by any other owner: lock() waits for it. Reentrancy
         *   applies only when this instance holds $name under the same token.
         * @throws \DistLock\LockTimeoutException when the wait ran out; when the server went silent
         *   during it, the message names the server and for how long, and getPrevious() is the
         *   ConnectionException (see LockTimeoutException)
         * @throws \DistLock\DeadlockException (a LockTimeoutException), not waited out, when this
         *   wait closes a cycle of waits across processes: this process holds a name that the holder
         *   of $name waits for, directly or through others; at the registration that closes it (fair
         *   and fenced waits from their first re-registration, within about 2 s) (docs/deadlocks.md;
         *   every kind of lock on one server or Sentinel; option deadlock_detection)
         * @throws \DistLock\ConnectionException on connect, auth, I/O, timeout or protocol errors
         *   (an acquire whose reply was lost is first undone with the same token)
         * @throws \DistLock\QuorumException (a ConnectionException) with Redlock, when more masters
         *   failed than a quorum survives, in 3 attempts (1 without a wait); names each failure
         * @throws \DistLock\ReplicationException (a ConnectionException) with min_replicas, when
         *   fewer replicas acknowledged the grant within replica_timeout (the grant is undone)
         * @throws \ValueError for an empty or too long name or token, or ttl/wait out of range
         * @throws \DistLock\LockKindException when $name is held as a readers-writer lock or a semaphore (at once: a wait cannot end it)
         */
        public function lock(string $name, ?float $ttl = null, ?float $wait = null, #[\SensitiveParameter] ?string $token = null): DistLock\Lock {}

        /**
         * One attempt, no waiting (a plain SET NX PX: one round trip).
         *
         * @param string|null $token the owner token, as for lock(); null: a fresh random one
         * @return DistLock\Lock|null null when another owner holds $name (also when the key already
         *   holds $token but this instance does not hold it: Laravel's RedisLock semantics)
         * @throws \DistLock\ConnectionException on network errors (never reported as null)
         * @throws \ValueError as lock()
         * @throws \DistLock\LockKindException as lock()
         */
        public function tryLock(string $name, ?float $ttl = null, #[\SensitiveParameter] ?string $token = null): ?DistLock\Lock {}

        /**
         * A shared lease on $name (a readers-writer lock, docs/primitives.md): any number of
         * shared holders at once, each with its own lease and token, and no exclusive holder
         * (lockExclusive()) meanwhile. Writer preference: while an exclusive acquirer waits, new
         * shared leases wait too, so a stream of readers cannot starve a writer. A waiter blocks
         * on Redis (BLPOP) and is woken when the exclusive holder releases. The handle's
         * promote() turns a sole shared lease into the exclusive one. Fair mode and fencing
         * tokens (options) do not apply to shared leases. Use lockExclusive(), not lock(), for
         * the exclusive side of a name locked shared: lock() does not see shared holders.
         * Reentrant: on a name this instance holds shared (under $token, when given) or
         * exclusively, another handle on that lease at once (one refresh round trip, never
         * shorter), also while a writer waits; on an exclusive lease, a shared view of it (the
         * lease stays exclusive until its last exclusive handle is released, then turns shared).
         *
         * @param string $name 1 to 1024 bytes, binary-safe
         * @param float|null $ttl lease length in seconds (> 0, at most 1e9); null: the default
         * @param float|null $wait seconds to wait (>= 0); null: the default
         * @param string|null $token the owner token, 1 to 128 bytes (as lock()); null: a fresh one
         *   from the CSPRNG. A token that holds a shared lease already refreshes it when granted
         * @throws \DistLock\LockTimeoutException when the wait ran out
         * @throws \DistLock\DeadlockException (a LockTimeoutException) when this wait closes a cycle
         *   of waits across processes: the writer, or while an exclusive waiter is queued (writer
         *   preference) a reader, waits for what this process holds; from the first
         *   re-registration, within about 2 s (docs/deadlocks.md)
         * @throws \DistLock\ConnectionException on network errors
         * @throws \ValueError for an empty or too long name or token, ttl/wait out of range, or a
         *   Redlock instance (shared locks need one server, Sentinel or Cluster; the message says why)
         * @throws \DistLock\LockKindException when $name is held as a mutex or a semaphore (at once: a wait cannot end it)
         */
        public function lockShared(string $name, ?float $ttl = null, ?float $wait = null, #[\SensitiveParameter] ?string $token = null): DistLock\Lock {}

        /**
         * One attempt at lockShared(), no waiting.
         *
         * @return DistLock\Lock|null null when an exclusive lease is held or waited for
         * @throws \DistLock\ConnectionException|\ValueError as lockShared()
         * @throws \DistLock\LockKindException as lockShared()
         */
        public function tryLockShared(string $name, ?float $ttl = null, #[\SensitiveParameter] ?string $token = null): ?DistLock\Lock {}

        /**
         * The exclusive lease on a name that is also locked shared: granted when nobody holds
         * it, shared or exclusive; waits for the shared holders to leave (their releases wake
         * it), and keeps new shared leases out meanwhile. Reentrant like lock(); fencing tokens
         * as lock() (option fencing); no fair mode. demote() turns it into a shared lease.
         * On a name this instance holds shared (under $token, when given), the upgrade, never a
         * wait: as the only reader its lease is promoted at once (as Lock::promote(), a new
         * fencing token) and the exclusive handle returned; releasing it while the shared
         * handle is held turns the lease shared again, releasing the shared one first leaves
         * it exclusive; the lease ends with its last handle.
         *
         * @param string|null $token the owner token, as lock()
         * @throws \DistLock\LockTimeoutException|\DistLock\ConnectionException|\ValueError as lockShared()
         * @throws \DistLock\DeadlockException when this wait closes a cycle: the writer or any reader
         *   waits for what this process holds (an exclusive waiter needs every reader gone)
         * @throws \DistLock\LockKindException as lockShared()
         * @throws \LogicException at once when this instance holds $name shared and others do too
         *   (or it holds it shared under two tokens): the upgrade would wait for them
         */
        public function lockExclusive(string $name, ?float $ttl = null, ?float $wait = null, #[\SensitiveParameter] ?string $token = null): DistLock\Lock {}

        /**
         * One attempt at lockExclusive(), no waiting.
         *
         * @return DistLock\Lock|null null when the name is held, shared or exclusive, by another owner
         * @throws \DistLock\ConnectionException|\ValueError as lockShared()
         * @throws \DistLock\LockKindException as lockShared()
         * @throws \LogicException as lockExclusive()
         */
        public function tryLockExclusive(string $name, ?float $ttl = null, #[\SensitiveParameter] ?string $token = null): ?DistLock\Lock {}

        /**
         * $permits of the $limit permits of the counting semaphore $name (docs/primitives.md).
         * Granted when the permits held by live holders plus $permits fit $limit. Each holder has
         * its own lease: a holder that dies returns its permits when its lease ends. A waiter
         * blocks on Redis and is woken by a release that frees permits (as many waiters as
         * permits freed), or at the earliest lease end. $limit is what this caller counts
         * against: changing it changes the next acquire's limit. The handle releases all its
         * permits at once.
         *
         * @param int $limit the semaphore's number of permits, 1 to 1e9
         * @param int $permits permits to take, 1 to $limit
         * @param float|null $ttl lease length in seconds; null: the default
         * @param float|null $wait seconds to wait; null: the default
         * @param string|null $token the owner token, 1 to 128 bytes (as lock()); null: a fresh one
         *   from the CSPRNG. A token that holds permits of $name already: a grant replaces its
         *   count, and while asking, its own permits count against the limit too (a token this
         *   instance holds permits with: LogicException, restorePermits() gives another handle)
         * @throws \DistLock\LockTimeoutException when the wait ran out
         * @throws \DistLock\DeadlockException (a LockTimeoutException) when this wait is in a knot:
         *   every holder of $name's permits that could free it waits, directly or through others,
         *   for what this process holds (one holder that can still release is no deadlock; from
         *   the first re-registration, within about 2 s; docs/deadlocks.md)
         * @throws \DistLock\ConnectionException on network errors
         * @throws \ValueError for a bad name or token, a limit or permits out of range, ttl/wait
         *   out of range, or a Redlock instance
         * @throws \DistLock\LockKindException when $name is held as a mutex or a readers-writer lock (at once: a wait cannot end it)
         * @throws \LogicException at once when only this instance's own release could grant it (the
         *   permits it holds on $name plus $permits exceed $limit), or for a $token it holds permits with
         */
        public function acquirePermits(string $name, int $limit, int $permits = 1, ?float $ttl = null, ?float $wait = null, #[\SensitiveParameter] ?string $token = null): DistLock\Lock {}

        /**
         * One attempt at acquirePermits(), no waiting.
         *
         * @return DistLock\Lock|null null when the permits are not free now
         * @throws \DistLock\ConnectionException|\ValueError as acquirePermits()
         * @throws \DistLock\LockKindException as acquirePermits()
         * @throws \LogicException as acquirePermits()
         */
        public function tryAcquirePermits(string $name, int $limit, int $permits = 1, ?float $ttl = null, #[\SensitiveParameter] ?string $token = null): ?DistLock\Lock {}

        /**
         * restore() for permits of a semaphore (acquirePermits()): adopts the permits held under
         * $token (one round trip: the semaphore status script). The handle releases all of them.
         *
         * @param string $token the owner token, 1 to 128 bytes, not beginning with a NUL byte
         * @throws \DistLock\LockLostException when $token holds no live permits of $name
         * @throws \DistLock\ConnectionException on network errors
         * @throws \ValueError for an empty or too long name or token, or a Redlock instance
         * @throws \DistLock\LockKindException when $name is held under another kind than a semaphore
         */
        public function restorePermits(string $name, #[\SensitiveParameter] string $token): DistLock\Lock {}

        /**
         * A semaphore's use now (one read-only script).
         *
         * @return array{holders: int, used: int} live holders, and the permits they hold
         * @throws \DistLock\ConnectionException on network errors
         * @throws \ValueError for a bad name, or a Redlock instance
         */
        public function permits(string $name): array {}

        /**
         * A multi-lock: every name of $names or none, each with its own lease, token and
         * fencing token (docs/primitives.md). On one server, under Sentinel and on Cluster with
         * every name in one hash slot: one script, one round trip; a waiter blocks on the wake
         * lists of the names it found taken and is woken by the release of any. On Cluster
         * across slots: one name after the other in a canonical order (so two callers wanting
         * overlapping sets cannot deadlock), and those taken are released again when a later
         * one cannot be had. Release the handles one by one, or let them go out of scope.
         *
         * @param array $names 1 to 64 distinct lock names (strings)
         * @return list<DistLock\Lock> one handle per name, in the order of $names
         * @throws \DistLock\LockTimeoutException when the wait ran out (nothing is held then)
         * @throws \DistLock\DeadlockException (a LockTimeoutException; nothing is held then) when
         *   this wait, for the holders of all the names it found taken, closes a cycle of waits
         *   across processes (from its first re-registration, within about 2 s; on one server or
         *   Sentinel; docs/deadlocks.md)
         * @throws \DistLock\ConnectionException on network errors (nothing is held then)
         * @throws \LogicException when this instance already holds one of the names
         * @throws \TypeError for a name that is not a string
         * @throws \ValueError for no names, more than 64, a name twice, a bad name, ttl/wait out
         *   of range, or a Redlock instance
         * @throws \DistLock\LockKindException when one of the names is held as a readers-writer lock or a semaphore (nothing is held then)
         */
        public function lockAll(array $names, ?float $ttl = null, ?float $wait = null): array {}

        /**
         * One attempt at lockAll(), no waiting.
         *
         * @return list<DistLock\Lock>|null null when any of the names is held
         * @throws \DistLock\ConnectionException|\LogicException|\TypeError|\ValueError as lockAll()
         * @throws \DistLock\LockKindException as lockAll()
         */
        public function tryLockAll(array $names, ?float $ttl = null): ?array {}

        /**
         * Releases several handles of this instance at once, each as its release() would
         * (a lease shared by an outer handle stays held; a handle of another process, lost
         * or released already counts 0), the leases in one pipelined round trip: the
         * release of a lockAll() multi-lock costs what one lock's costs. Any kind of
         * handle (locks, shared and exclusive leases, permits), any topology.
         *
         * @param array $locks DistLock\Lock handles acquired through this instance (a list;
         *   the same handle twice is released once)
         * @return int how many handles were released (release() would have returned true)
         * @throws \DistLock\ConnectionException on network errors (every handle is kept:
         *   a later release, its destruction or the request's end tries again); after a
         *   timeout or a lost reply its message says the outcome is unknown (as Lock::release(),
         *   and as there, a releaseAll() again counts a handle whose key it finds gone while
         *   the lease is valid as released)
         * @throws \TypeError for an element that is not a DistLock\Lock
         * @throws \ValueError for a handle of another DistLock instance
         */
        public function releaseAll(array $locks): int {}

        /**
         * lock(), then $callback($lock), then release in all cases (also when the
         * callback throws, which is rethrown). The release is written without waiting for
         * its reply (option defer_release), which is read before this instance's next
         * command; a failure then is counted in stats()['connection_errors'], never thrown.
         *
         * @return mixed the callback's return value
         * @throws \DistLock\LockTimeoutException|\DistLock\ConnectionException|\ValueError as lock()
         * @throws \DistLock\LockKindException as lock()
         */
        public function synchronized(string $name, callable $callback, ?float $ttl = null, ?float $wait = null): mixed {}

        /**
         * Adopts a lease held under $token (e.g. acquired by another process). This
         * process then releases it at destruction or request end.
         *
         * @param string $token the owner token, 1 to 128 bytes, not beginning with a NUL byte
         * @throws \DistLock\LockLostException when $name is not held with $token
         * @throws \DistLock\ConnectionException on network errors
         * @throws \ValueError for an empty or too long name or token
         * @throws \DistLock\LockKindException when $name is held under another kind than a mutex
         */
        public function restore(string $name, #[\SensitiveParameter] string $token): DistLock\Lock {}

        /**
         * restore() for a shared lease (lockShared()): adopts the shared lease held under $token
         * (one round trip: the shared status script). The handle acts as lockShared()'s:
         * release(), refresh(), promote(), detach().
         *
         * @param string $token the owner token, 1 to 128 bytes, not beginning with a NUL byte
         * @throws \DistLock\LockLostException when $token holds no live shared lease on $name
         * @throws \DistLock\ConnectionException on network errors
         * @throws \ValueError for an empty or too long name or token, or a Redlock instance
         * @throws \DistLock\LockKindException when $name is held under another kind than a readers-writer lock
         */
        public function restoreShared(string $name, #[\SensitiveParameter] string $token): DistLock\Lock {}

        /**
         * restore() for an exclusive lease of a name also locked shared (lockExclusive()): its
         * release wakes the shared waiters too, and demote() works on it.
         *
         * @param string $token the owner token, 1 to 128 bytes, not beginning with a NUL byte
         * @throws \DistLock\LockLostException when $name is not held exclusively with $token
         * @throws \DistLock\ConnectionException on network errors
         * @throws \ValueError for an empty or too long name or token, or a Redlock instance
         * @throws \DistLock\LockKindException as restoreShared()
         */
        public function restoreExclusive(string $name, #[\SensitiveParameter] string $token): DistLock\Lock {}

        /**
         * Owner-checked release by name and token, for a lease held anywhere (detached, or taken
         * by another process): one round trip of the compare-and-delete script, which also wakes
         * the longest waiter (fair mode: hands the lock to it). This instance's own handles on
         * that lease then see it as released.
         *
         * @param string $token the owner token, 1 to 128 bytes, not beginning with a NUL byte
         * @return bool true when $name was held with $token and is now free; false otherwise
         * @throws \DistLock\ConnectionException on network errors (the release is sent once more on
         *   a fresh connection first: it is idempotent); after a timeout or a lost reply its
         *   message says the outcome is unknown (as Lock::release())
         * @throws \ValueError for an empty or too long name or token
         * @throws \DistLock\LockKindException when $name is held under another kind than a mutex (a shared lease or permits are released through their handle)
         */
        public function release(string $name, #[\SensitiveParameter] string $token): bool {}

        /**
         * Owner-checked extension by name and token (compare-and-PEXPIRE), one round trip.
         *
         * @param string $token the owner token, 1 to 128 bytes, not beginning with a NUL byte
         * @param float|null $ttl the new lease length in seconds from now (> 0, at most 1e9; rounded up
         *   to ms); null: the instance's default ttl
         * @return bool true when $name is held with $token (the lease now ends $ttl from now); false otherwise
         * @throws \DistLock\ConnectionException on network errors
         * @throws \ValueError for an empty or too long name or token, or a ttl out of range
         * @throws \DistLock\LockKindException as release()
         */
        public function refresh(string $name, #[\SensitiveParameter] string $token, ?float $ttl = null): bool {}

        /**
         * The owner token $name is held under exclusively now (one GET), e.g. for Laravel's
         * getCurrentOwner() or symfony/lock's exists(): a mutex's holder (lock(), tryLock(), fair
         * mode, a lockAll() member) or the exclusive holder of a readers-writer name
         * (lockExclusive()). The token is a bearer credential for release: do not log it.
         * Redlock: the token a quorum of masters hold.
         *
         * @return string|null the token; null when nobody holds $name exclusively: free, held by
         *   shared holders only (lockShared(): as many owners as holders, none of them "the"
         *   owner), by a semaphore (acquirePermits(), even with one holder), or by a key distlock
         *   did not write of another type than a string (see status()'s kind "foreign"; a string
         *   is returned as it is)
         * @throws \DistLock\ConnectionException on network errors
         */
        public function owner(string $name): ?string {}

        /**
         * What an administrator needs to know of $name, whatever holds it, in one round trip of
         * one read-only script (TIME, TYPE, GET, PTTL, ZCOUNT, ZCARD, ZSCORE, ZRANGE, HGET on the
         * name's keys: docs/primitives.md, "What status() reads"). Never contains a token. Only
         * live leases count: a lease whose time ran out is not seen, though no acquire has
         * dropped it yet. Redlock: the mutex only, as a quorum of masters see it (waiters 0).
         *
         * @return array{locked: bool, ttl: float, waiters: int, kind: ?string, holders: int, permits: int}
         *   locked: anyone holds $name, of any kind (as isLocked());
         *   ttl: seconds until the last live lease ends, the longest of the holders' (0.0 when
         *   free, INF for a key without a TTL, which distlock never writes);
         *   waiters: processes waiting for $name, in every queue its kind has: the waiters of a
         *   mutex, of an exclusive lease and of permits, the fair queue, the shared waiters (a
         *   dead fair waiter counts until the next attempt drops it);
         *   kind: "mutex" (lock(), tryLock(), fair mode, a lockAll() member), "exclusive" (the
         *   exclusive lease of a readers-writer name: lockExclusive()), "shared" (lockShared()),
         *   "semaphore" (acquirePermits()), "foreign" (a key distlock did not write, e.g.
         *   symfony's RedisStore's), or null when free;
         *   holders: live leases: 1 for a mutex or an exclusive lease, the shared leases, the
         *   semaphore's holders (a foreign sorted set: its members; another foreign key: 1), 0 when free;
         *   permits: the semaphore's permits in use (holders of several permits count each), else 0
         * @throws \DistLock\ConnectionException on network errors
         */
        public function status(string $name): array {}

        /**
         * @return bool whether anyone holds $name, of any kind: status()['locked'], one round trip
         *   (Redlock: a quorum of masters hold the mutex's key)
         * @throws \DistLock\ConnectionException on network errors
         */
        public function isLocked(string $name): bool {}

        /**
         * Deletes $name whoever holds it, of any kind (one DEL of the name's key, its
         * shared holders and a semaphore's permits; Redlock: the key on every master).
         * For administration; breaks mutual exclusion. Waiters are not woken: they try
         * again when their block time ends.
         *
         * @return bool true when a holder existed and was deleted
         * @throws \DistLock\ConnectionException on network errors
         */
        public function forceRelease(string $name): bool {}

        /**
         * Per-process counters (since process start): acquired, contended, timeouts,
         * released, lost, refreshed, wait_time_us (lock() waits only), connection_errors,
         * native_releases (releases done by the server's own compare-and-delete,
         * DELEX ... IFEQ or Valkey's DELIFEQ, without a script, on every path: release(),
         * by token, at destruction, request end and endRequest(); process-wide), native_fallbacks (native
         * commands the server refused although its version has them: unknown command,
         * syntax error or NOPERM; each was followed by the script, and that connection
         * uses the script from then on; process-wide), renewals and renewal_round_trips (the
         * watchdog's), observer_errors (exceptions thrown by observers, swallowed:
         * addObserver()); all int.
         *
         * @return array<string, int>
         */
        public function stats(): array {}

        /**
         * Ends a logical request in a long-running worker (FrankenPHP's worker mode,
         * RoadRunner, Laravel Octane, Symfony Runtime), where one PHP request serves
         * many HTTP requests and the release at the end of the PHP request never comes
         * between them. It does for leases what the end of a PHP request does: every
         * lease that a DistLock instance of this PHP request still holds is released
         * (one pipelined round trip per server), except detached ones (Lock::detach())
         * and those inherited through fork(); Lock handles on them then find them
         * released (Lock::release() returns false). Replies still owed by deferred
         * releases are read, so every connection is ready for the next request, and
         * stays open. Call it once after each handled request, in a `finally` block or
         * the framework's request-terminated hook (README, "Long-running workers").
         * A lease meant to outlive the request (a worker-wide leader lock) must be
         * detached, or held by a DistLock created and kept outside the loop and
         * re-taken per request.
         *
         * Errors are counted in stats() (connection_errors; lost for leases found
         * already gone), never thrown: it runs where an exception would hide the
         * handled request's own outcome.
         *
         * @return int the number of leases it released (found still ours)
         */
        public static function endRequest(): int {}

        /**
         * Registers an observer of lock operations: $observer(DistLock\Event $event): void is
         * called once per operation of every DistLock of this process (this thread on a
         * thread-safe build), after the operation completed and before its call returns or
         * throws, synchronously, in registration order. Kinds of operation and the fields of
         * an event: DistLock\Event. Implicit releases (destruction, end of synchronized(),
         * endRequest(), request end) are reported after the fact, when their reply is read;
         * the watchdog's renewals and lost leases at this thread's next distlock call, the
         * lost-lease watch's interrupt, or request end.
         *
         * An exception thrown by an observer is swallowed and counted in
         * stats()['observer_errors']: the operation's result and lease are untouched and the
         * later observers still run. A distlock call made inside an observer works but
         * produces no event. Observers are dropped at request end (endRequest() keeps them).
         * The same callable registered twice is called twice.
         *
         * @param callable $observer called as $observer(DistLock\Event $event): void
         */
        public static function addObserver(callable $observer): void {}

        /**
         * Unregisters an observer, compared as spl_autoload_unregister() compares callables
         * (the same function, method and object; a closure only as the same object). One
         * registration is removed per call.
         *
         * @return bool true when it was registered
         */
        public static function removeObserver(callable $observer): bool {}

        /**
         * Resource helpers: lock<Resource>($id, ?float $ttl, ?float $wait): Lock,
         * tryLock<Resource>($id, ?float $ttl): ?Lock, unlock<Resource>($id, string $token): bool.
         * The name is "<resource>:<id>" with <Resource> in snake_case (lockCourseSeat(7) ->
         * "course_seat:7"); defaults from options['resources'][resource].
         *
         * @throws \Error for a method that is no helper shape
         * @throws \ArgumentCountError|\TypeError|\ValueError for bad arguments
         */
        public function __call(string $method, #[\SensitiveParameter] array $args): mixed {}
    }
}

namespace DistLock {
    /**
     * A handle on a held lease. Created by DistLock only. Released when destroyed,
     * and at request end, but only in the process that acquired it. The release at
     * destruction is written without waiting for its reply (option defer_release): the
     * reply is read before the DistLock's next command, before its connection goes back
     * to a persistent pool, and at request end; a release whose connection failed first
     * is sent again on a fresh connection. release() is always confirmed.
     *
     * @strict-properties
     * @not-serializable
     */
    final class Lock
    {
        /** @return string the lock name (without the key prefix) */
        public function name(): string {}

        /**
         * @return string the owner token: the caller's (lock()/tryLock() $token, restore()), else
         *   32 lowercase hex characters (128 bits from the kernel CSPRNG)
         */
        public function token(): string {}

        /**
         * Turns off this lease's automatic release: neither the destruction of its handles nor
         * request end releases it, the watchdog stops renewing it, and the instance forgets it
         * (a later lock() of the name by the same instance is a new owner and contends). For
         * leases that must outlive the PHP object or the request (Laravel's cache locks,
         * symfony/lock's stores). The handles keep working: release(), refresh(), isAcquired()
         * and remainingLifetime() act by token; elsewhere use DistLock::release()/refresh() or
         * restore() with the token. The key expires after its TTL if nobody releases it.
         *
         * @return string the owner token (as token())
         */
        public function detach(): string {}

        /**
         * Releases the lease (compare-and-delete: never deletes another owner's key) and wakes
         * the longest waiter (fair mode: hands the lock to it). With several handles on one
         * lease (reentrancy) the key is deleted with the last one; the last exclusive handle
         * of a readers-writer lease that shared handles still hold (an upgrade, a shared view)
         * turns it shared instead (the demote script).
         *
         * @return bool true when it was ours; false when it had expired or been taken over
         *   (or the watchdog found it lost), on every later call, and in a process other
         *   than the acquiring one (no-op)
         * @throws ConnectionException on network errors (the handle stays held). When the
         *   release was written but its answer never came (a timeout, a lost connection) the
         *   outcome is unknown and the message says so: the server may have released the
         *   lease or not; it ends by its TTL at the latest, isAcquired() or status() tells,
         *   and release() again ends it if it is still held. A release() again (or
         *   releaseAll()) that finds the key gone while the lease is still valid returns true
         *   and counts it released (an isAcquired() then returns false and counts it released
         *   too): it cannot have expired, so the failed release ran (see
         *   docs/decisions/0010-key-gone-while-valid-counts-as-released.md)
         */
        public function release(): bool {}

        /**
         * Resets the lease to $ttl seconds if still ours (compare-and-PEXPIRE).
         *
         * @param float|null $ttl seconds (> 0, at most 1e9); null: the lease's current ttl
         * @return bool false when the lease was lost or released
         * @throws ConnectionException on network errors
         * @throws \ValueError for a ttl out of range
         */
        public function refresh(?float $ttl = null): bool {}

        /**
         * @return bool whether Redis still holds this lease's token (one round trip)
         * @throws ConnectionException on network errors
         */
        public function isAcquired(): bool {}

        /**
         * @return float seconds of lease left (the key's PTTL), 0.0 when released or lost. With
         *   Redlock: the validity, the quorum-th longest PTTL of the masters less the drift
         *   allowance (ttl * 0.01 + 2 ms, redis.io)
         * @throws ConnectionException on network errors (Redlock: QuorumException when too few
         *   masters answered)
         */
        public function remainingLifetime(): float {}

        /**
         * Promotion of a shared lease (lockShared()) to the exclusive one, at once or not at
         * all: only while it is the sole shared holder and nobody holds the name exclusively.
         * It never waits: two holders promoting at once would each wait for the other to leave
         * (the readers-writer deadlock); release and call lockExclusive() instead when you must.
         *
         * @param float|null $ttl the exclusive lease's length in seconds; null: the lease's ttl
         * @return bool true when promoted (fencingToken() then has a new token with option
         *   fencing); false when other shared holders remain (this shared lease is kept) or the
         *   lease was lost or released
         * @throws \LogicException for a lease that is not shared
         * @throws ConnectionException on network errors
         * @throws \ValueError for a ttl out of range
         */
        public function promote(?float $ttl = null): bool {}

        /**
         * Demotion of an exclusive lease (lockExclusive()) to a shared one, which lets waiting
         * shared acquirers in (unless an exclusive acquirer waits: writer preference).
         *
         * @param float|null $ttl the shared lease's length in seconds; null: the lease's ttl
         * @return bool true when demoted; false when the lease was lost or released
         * @throws \LogicException for a lease that is not from lockExclusive()
         * @throws ConnectionException on network errors
         * @throws \ValueError for a ttl out of range
         */
        public function demote(?float $ttl = null): bool {}

        /**
         * @return int|null the fencing token of this grant: greater than every earlier grant's
         *   of this name (option fencing); null without fencing
         */
        public function fencingToken(): ?int {}
    }

    /**
     * One lock operation, as an observer registered with DistLock::addObserver() receives
     * it. Made by the extension only; every property is read-only. Never holds a password,
     * a user name or an owner token.
     *
     * @strict-properties
     * @not-serializable
     */
    final class Event
    {
        /**
         * 'acquire' | 'release' | 'refresh' | 'renewal' (the watchdog's background refresh) |
         * 'lost' (a held lease the watchdog or the lost-lease watch found gone)
         */
        public readonly string $operation;
        /** 'mutex' | 'shared' | 'exclusive' | 'permits' | 'multi' (lockAll(), tryLockAll()) */
        public readonly string $kind;
        /** the lock name as the caller gave it (without the prefix); multi: the first name */
        public readonly string $name;
        /** @var list<string> every name of the operation ([$name] for one name) */
        public readonly array $names;
        /**
         * acquire: 'acquired' | 'conflict' (no wait: held by another) | 'timeout' (a wait
         * ended) | 'wrong_kind' (LockKindException) | 'error' (connection, quorum,
         * replication); release: 'released' | 'lost' (no longer ours) | 'error';
         * refresh, renewal: 'refreshed' | 'lost' | 'error'; lost: 'lost'
         */
        public readonly string $outcome;
        /** when the operation began: ns on the monotonic clock of hrtime(true) */
        public readonly int $startNs;
        /** the operation's duration, ns (monotonic) */
        public readonly int $callNs;
        /** ns spent waiting for other holders (0 when it did not wait) */
        public readonly int $waitNs;
        /**
         * round trips to the server(s) the operation made (Redlock: one per master whose
         * reply was read in the call, 3 to 5 of 5 since a grant may return at its quorum; 0 for a deferred release, whose reply rides on a later round trip, and
         * for a reentrant handle's release, which needs no server; a batch of releases in
         * one round trip, releaseAll(), endRequest(), request end: on its first event)
         */
        public readonly int $roundTrips;
        /**
         * "host:port" ("[v6]:port", or "unix:/path") of the node that answered (Redlock:
         * the first that answered); every event of a batch (releaseAll(), endRequest(),
         * request end) names the node that answered its lease (Cluster: its slot's); null when
         * none did (a reentrant handle's release, a lease lost already, an error). 'renewal' and 'lost': the configured
         * server of a single-server instance, null on other topologies. Never a user name or
         * password.
         */
        public readonly ?string $server;
        /** the grant's fencing token (option fencing, mutex and exclusive leases), else null */
        public readonly ?int $fencingToken;
        /** the lease TTL asked for, seconds (acquire, refresh, renewal), else null */
        public readonly ?float $ttl;
        /** permits kind: the permits taken or given back, else null */
        public readonly ?int $permits;
        /**
         * release with outcome 'released': ns from the grant to the release (to the write, for a
         * deferred one); 'lost': from the grant to the renewal that found the loss; else null
         */
        public readonly ?int $heldNs;
        /** a release by destruction, at the end of synchronized(), by endRequest() or at request end */
        public readonly bool $implicit;
        /** outcome 'error': the exception's message (no secrets), else null */
        public readonly ?string $error;

        /** Not constructible: events are made by the extension. */
        private function __construct() {}
    }

    /** Base class of the extension's exceptions. */
    class Exception extends \RuntimeException {}

    /** Connect, auth, I/O, timeout or protocol error: never reported as "not acquired". */
    class ConnectionException extends Exception {}

    /**
     * lock() waited $wait seconds and did not get the lock. When the server (or a Redlock
     * master) answered nothing in the end of the wait (its blocking wait ran to the deadline
     * and the cancel after it went unanswered for 0.25 s), the message adds "Redis at <host:port>
     * answered nothing for the last <s> s, since <s> s into the wait (...)", and getPrevious()
     * is the ConnectionException that showed it (counted in stats()['connection_errors']).
     * Plain contention keeps the plain message and no previous exception.
     */
    class LockTimeoutException extends Exception {}

    /**
     * A wait was not waited out: its registration as a waiter closed a cycle of waits across
     * processes (or ZTS threads), or for a semaphore's wait a knot (every holder that could
     * free it blocked in the same set), so no wait could have ended it before a lease ran out
     * (docs/deadlocks.md). Thrown from the registration's own reply, without blocking, to
     * exactly one waiter of the cycle: the one whose registration closed it (fair, fenced,
     * readers-writer, semaphore and lockAll() waits are checked from their first
     * re-registration, within about 2 s). The
     * message names the cycle: 'Deadlock detected: this process (pid 200) waits for
     * "account:9", held by pid 100 on web-3, which waits for "account:7", held by this
     * process (pid 200)'. A LockTimeoutException, so existing catch blocks keep working;
     * counted in stats()['deadlocks'], not in 'timeouts'. What to do: release what you hold,
     * back off a few milliseconds with jitter, and redo the unit of work (or take the names
     * together with lockAll()). Off with the option 'deadlock_detection' => false.
     */
    class DeadlockException extends LockTimeoutException {}

    /** An operation needed ownership of a lock that is gone. */
    class LockLostException extends Exception {}

    /**
     * Redlock: fewer than a quorum (N/2 + 1) of the N masters answered in time.
     * The message says how many of how many answered, and why each one that
     * failed did. A ConnectionException, so existing catch blocks keep working.
     */
    class QuorumException extends ConnectionException {}

    /**
     * Option min_replicas: fewer replicas than asked acknowledged a grant or a
     * refresh within replica_timeout (WAIT). The grant has been undone; a
     * refreshed lease is kept until its TTL but reported not extended.
     */
    class ReplicationException extends ConnectionException {}

    /**
     * The name is held under another kind than the call asks for: a mutex
     * (lock(), tryLock(), synchronized(), restore(), the lockAll() members,
     * release()/refresh() by token), a readers-writer lock (lockShared(),
     * lockExclusive(), restoreShared(), restoreExclusive()) or a semaphore
     * (acquirePermits(), tryAcquirePermits(), restorePermits()). One name is
     * held under one kind at a time; the message names the name and both
     * kinds. The server tells it in the same atomic step that would have
     * granted the call, so it never races a grant. The caller's mistake, not
     * a network fault: no ConnectionException, the connection stays usable and
     * stats() do not count it as a connection error. A wait cannot end it, so
     * lock*() fail at once, as tryLock*() do. A handle (DistLock\Lock) whose
     * name another kind holds now has lost its lease: its release() and
     * refresh() return false, as for any lost lease.
     */
    class LockKindException extends \LogicException {}

    /**
     * The call needs a command this Redis user may not run, or the server
     * lacks: scripting denied by an ACL (no +@scripting, or +evalsha +eval),
     * or a managed service without Lua. The message names what is missing.
     * Thrown at once, before anything is written: fair mode, fencing,
     * semaphores, readers-writer locks, multi-locks and Redlock need scripts;
     * a mutex (default mode, no fencing) works with plain commands where the
     * server has a native compare-and-delete (DELEX: Redis >= 8.4, Valkey >=
     * 9.2; DELIFEQ: Valkey >= 9.0), and is refused on one without (it could
     * not be released safely). Not a ConnectionException: the connection is
     * fine, and stats() do not count it as a connection error. README "Least
     * privilege"; docs/decisions/0047-mutex-without-scripting.md.
     */
    class PermissionException extends Exception {}
}
