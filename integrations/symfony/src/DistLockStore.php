<?php

declare(strict_types=1);

namespace DistLock\Symfony;

use DistLock\ConnectionException;
use DistLock\DeadlockException;
use DistLock\LockTimeoutException;
use DistLock\LockLostException;
use Symfony\Component\Lock\BlockingSharedLockStoreInterface;
use Symfony\Component\Lock\BlockingStoreInterface;
use Symfony\Component\Lock\Exception\InvalidTtlException;
use Symfony\Component\Lock\Exception\LockConflictedException;
use Symfony\Component\Lock\Exception\LockExpiredException;
use Symfony\Component\Lock\Exception\LockStorageException;
use Symfony\Component\Lock\Key;
use Psr\Log\LoggerAwareInterface;
use Psr\Log\LoggerAwareTrait;
use Psr\Log\LoggerInterface;

/**
 * A symfony/lock store over the distlock extension (symfony/lock 5.4 to 7.x).
 *
 * - The Redis key is the DistLock client's `prefix` option followed by the
 *   Key's resource (`(string) $key`); its value is the owner token, a string
 *   of 32 hex characters (128 bits from the OS CSPRNG) kept in the Key's state.
 *   Built from a server URI (the default configuration), the store makes its
 *   own client with the prefix '': the key is the resource, as with symfony's
 *   RedisStore, so that RedisStore and DistLockStore processes on one Redis
 *   exclude each other during a rolling deploy (README, "Migrating from
 *   RedisStore"). A client passed in keeps its own prefix (the extension's
 *   default is "lock:", which does not meet RedisStore's keys).
 *   The Key stays serializable: a lock taken in one process can be refreshed
 *   or released in another (`LockFactory::createLockFromKey()`).
 * - Every lease this store makes is detached from PHP object lifetime: neither
 *   the destruction of a PHP object nor request end releases it. symfony/lock's
 *   own `Lock` decides that (its `autoRelease` argument).
 * - `waitAndSave()` and `waitAndSaveRead()` block on Redis (BLPOP) and are
 *   woken by the release that lets them in: `Lock::acquire(true)` and
 *   `Lock::acquireRead(true)` do not poll.
 * - Shared (read) locks (`SharedLockStoreInterface`): a name is locked with
 *   distlock's readers-writer leases (`lockShared()`/`lockExclusive()`,
 *   docs/primitives.md): many read keys at once, each with its own lease; a
 *   write key excludes them all; while a write key waits, new read keys wait
 *   too (writer preference). A sole read key can be promoted by `save()` at
 *   once; with other readers in, promotion fails with LockConflictedException
 *   and never waits (a waiting promotion is where readers-writer locks
 *   deadlock). A write key is demoted by `saveRead()`. The exclusive side is
 *   the readers-writer one (the same key as the mutex, holding "\0W" and the
 *   owner token: one name is held under one kind, so a mutex, a semaphore or
 *   a store with `sharedLocks: false` on the same resource is refused it as a
 *   held lock; the client's `fair` option does not apply to it). With `sharedLocks: false`
 *   (and on a Redlock client) the write side is the mutex and a read lock is
 *   a write lock.
 * - A blocking save that would deadlock (a cycle of waits across processes,
 *   found by the extension when the wait is registered) throws
 *   LockConflictedException at once, the cycle in its message and the
 *   extension's DeadlockException as previous; it is not waited again.
 * - Network, protocol and server errors throw LockStorageException (the
 *   extension's exception as previous), never LockConflictedException.
 *
 * - Logging (PSR-3, `setLogger()` or the constructor's $logger, as symfony's
 *   Lock and LockFactory take one): a conflict (the resource held by another
 *   key) at info, a lost lease (refresh, release or check found this key's
 *   lease gone) at warning, with the resource in the context and never a token.
 *
 * Durations are float seconds. The extension rounds a ttl up to whole
 * milliseconds.
 */
final class DistLockStore implements BlockingStoreInterface, BlockingSharedLockStoreInterface, LoggerAwareInterface
{
    use LoggerAwareTrait;

    /** Key state: the mode of the key's lease, 'read' or 'write' (absent: never saved). */
    private const MODE = self::class . '::mode';

    /**
     * Key state: true once a save of the key succeeded (until delete()). A lease
     * found gone is logged as lost only then: a key whose save was refused holds
     * a token too, and symfony's Lock::release() deletes it all the same.
     */
    private const SAVED = self::class . '::saved';

    /**
     * This process's detached handles on the keys' leases (Key => [pid, mode,
     * DistLock\Lock]): one round trip per operation. A Key from elsewhere
     * (unserialized, another process) is adopted with restoreShared()/
     * restoreExclusive() first.
     *
     * @var \WeakMap<Key, array{int, string, \DistLock\Lock}>
     */
    private \WeakMap $handles;

    /**
     * No shared locks: the constructor's $sharedLocks was false, or the client
     * is a Redlock one (a list of masters, which offers none; found at the
     * first save). The write side is then the mutex (lock()/tryLock()), and a
     * read lock is taken as a write lock, as symfony's CombinedStore does with
     * stores that have no shared locks.
     */
    private bool $mutexOnly = false;

    /** Largest ttl the extension accepts, seconds. */
    private const MAX_TTL = 1e9;

    /**
     * One lock() call of waitAndSave() waits at most this long, seconds; the
     * wait then starts again (symfony's waitAndSave() has no limit).
     */
    private const WAIT_SLICE = 300.0;

    /** The client the store locks with (given, or built from a URI). */
    private readonly \DistLock $client;

    /**
     * @param \DistLock|string|list<string> $client the client whose connection, prefix and
     *                              options (e.g. `fair`, `persistent`) the store uses; or the
     *                              server URI(s) to build one from (a list = Redlock masters),
     *                              with $clientOptions and the prefix '' unless they name
     *                              another: the Redis key is then the resource, as with
     *                              symfony's RedisStore
     * @param float     $initialTtl lease length of save() and waitAndSave(), seconds
     *                              (> 0, at most 1e9); symfony's Lock then sets its own
     *                              ttl with putOffExpiration() when it has one
     * @param bool      $sharedLocks true: read locks are shared (the readers-writer
     *                              leases; the write side ignores the client's `fair`
     *                              option); false: the write side is distlock's mutex
     *                              (`fair` applies) and a read lock is a write lock, as
     *                              symfony does for stores without shared locks. All
     *                              stores of one resource must agree. A Redlock client
     *                              works as with false
     * @param array<string, mixed> $clientOptions DistLock options of the client built from a
     *                              URI (prefix default ''); must be empty when $client is a
     *                              \DistLock
     * @param LoggerInterface|null $logger where conflicts (info) and lost leases (warning)
     *                              are logged; also settable with setLogger(); none by default
     *
     * @throws InvalidTtlException when $initialTtl is not > 0 or larger than 1e9
     * @throws \InvalidArgumentException when $clientOptions is given with a \DistLock
     * @throws \ValueError|\TypeError from the extension for a malformed URI or a bad option
     *   (naming it; never a password)
     */
    public function __construct(
        #[\SensitiveParameter] \DistLock|string|array $client,
        private readonly float $initialTtl = 300.0,
        bool $sharedLocks = true,
        #[\SensitiveParameter] array $clientOptions = [],
        ?LoggerInterface $logger = null,
    ) {
        $this->logger = $logger;
        if (!($initialTtl > 0) || $initialTtl > self::MAX_TTL) {
            throw new InvalidTtlException(\sprintf('"%s()" expects a TTL greater than 0 and at most 1e9 seconds, got %s.', __METHOD__, $initialTtl));
        }
        if ($client instanceof \DistLock) {
            if ($clientOptions !== []) {
                throw new \InvalidArgumentException(\sprintf('"%s()": $clientOptions applies only to a client the store builds from a URI; set the options on the \DistLock you pass.', __METHOD__));
            }
            $this->client = $client;
        } else {
            $this->client = new \DistLock($client, $clientOptions + ['prefix' => '']);
        }
        $this->handles = new \WeakMap();
        $this->mutexOnly = !$sharedLocks;
    }

    /**
     * Takes the lock for $key in one attempt, with a lease of the initial ttl.
     * Saving a key that already holds the lock refreshes its lease.
     *
     * @throws LockConflictedException when another key holds the lock
     * @throws LockExpiredException    when the key's lifetime ran out meanwhile (the lease is released)
     * @throws LockStorageException    on network, protocol or server errors
     * @throws \ValueError for a resource the extension refuses (empty, over 1024 bytes), saying why
     *   (an \Error, so that Lock::acquire() does not hide the reason under "Failed to acquire")
     */
    public function save(Key $key): void
    {
        $name = (string) $key;
        $token = $this->token($key);
        $ttl = $this->initialTtl;
        $key->reduceLifetime($ttl);

        // A read key becomes the write key at once or not at all (promotion never waits).
        if (self::mode($key) === 'read' && ($h = $this->handle($key, 'read')) !== null) {
            if (!$this->call(static fn () => $h->promote($ttl), $key, 'save')) {
                throw $this->conflict($name, 'The "%s" lock is also read-locked by other keys: a read lock is promoted only by its sole holder.', 'read-locked by other keys (a read lock is promoted only by its sole holder)');
            }
            $this->remember($key, 'write', $h);
            $this->saved($key);

            return;
        }

        try {
            $acquired = $this->exclusive(
                static fn (\DistLock $c) => $c->tryLockExclusive($name, $ttl, token: $token),
                static fn (\DistLock $c) => $c->tryLock($name, $ttl, token: $token),
                $key,
            );
        } catch (\Exception $e) {
            // Held under another kind (an older RedisStore's or Laravel's string lock,
            // a distlock mutex or semaphore): someone else holds the resource.
            if (!self::isKindError($e)) {
                throw $e;
            }
            throw $this->conflict($name, 'The "%s" lock is held by another key (of another kind of lock).', 'held under another kind of lock', $e);
        }
        if ($acquired !== null) {
            $acquired->detach();
            if (!$this->mutexOnly) {
                $this->remember($key, 'write', $acquired);
            }
        } elseif (!$this->refreshIfOurs($name, $token, $ttl, $key, 'save')) {
            throw $this->conflict($name, 'The "%s" lock is held by another key.', 'held by another key');
        }

        $this->saved($key);
    }

    /**
     * Takes a read (shared) lock for $key in one attempt, with a lease of the
     * initial ttl: granted while no key holds the write lock and none waits
     * for it. A read key that saves again refreshes its lease; the write key
     * is demoted to a read key.
     *
     * @throws LockConflictedException when another key holds the write lock or waits for it
     * @throws LockExpiredException    when the key's lifetime ran out meanwhile (the lease is released)
     * @throws LockStorageException    on network, protocol or server errors
     * @throws \ValueError for a resource the extension refuses, saying why
     */
    public function saveRead(Key $key): void
    {
        if ($this->mutexOnly) {
            $this->save($key);

            return;
        }
        $name = (string) $key;
        $token = $this->token($key);
        $ttl = $this->initialTtl;
        $key->reduceLifetime($ttl);

        if ($this->keepAsRead($key, $ttl)) {
            $this->saved($key);

            return;
        }
        try {
            $acquired = $this->call(static fn (\DistLock $c) => $c->tryLockShared($name, $ttl, token: $token), $key, 'save');
        } catch (\Exception $e) {
            if (!self::isKindError($e)) {
                throw $e;
            }
            throw $this->conflict($name, 'The "%s" lock is held by another key (of another kind of lock).', 'held under another kind of lock', $e);
        } catch (\ValueError $e) {
            if (!self::refusedByRedlock($e)) {
                throw $e;
            }
            $this->mutexOnly = true;
            $this->save($key);

            return;
        }
        if ($acquired === null) {
            throw $this->conflict($name, 'The "%s" lock is write-locked by another key, or another key waits to write-lock it.', 'write-locked by another key, or another key waits to write-lock it');
        }
        $acquired->detach();
        $this->remember($key, 'read', $acquired);

        $this->saved($key);
    }

    /**
     * Waits until $key can take a read lock and takes it, with a lease of the
     * initial ttl. The wait blocks on Redis and is woken by the write key's
     * release; no time limit (as waitAndSave()).
     *
     * @throws LockConflictedException when waiting would deadlock (see waitAndSave())
     * @throws LockExpiredException  when the key's lifetime ran out meanwhile (the lease is released)
     * @throws LockStorageException  on network, protocol or server errors
     * @throws \ValueError for a resource the extension refuses, saying why
     */
    public function waitAndSaveRead(Key $key): void
    {
        if ($this->mutexOnly) {
            $this->waitAndSave($key);

            return;
        }
        $name = (string) $key;
        $token = $this->token($key);
        $ttl = $this->initialTtl;

        $start = microtime(true);
        if ($this->keepAsRead($key, $ttl)) {
            $key->reduceLifetime($ttl - (microtime(true) - $start));
            $this->saved($key);

            return;
        }
        try {
            $lease = $this->waitFor($key, static fn (\DistLock $c) => $c->lockShared($name, $ttl, self::WAIT_SLICE, token: $token));
        } catch (\ValueError $e) {
            if (!$this->mutexOnly) {
                throw $e;
            }
            $this->waitAndSave($key);

            return;
        }
        $this->remember($key, 'read', $lease);
        $this->reduceLifetimeAfterWait($key, $lease, $ttl, $start);

        $this->saved($key);
    }

    /**
     * Waits until the lock for $key is free and takes it, with a lease of the
     * initial ttl. The wait blocks on Redis and is woken by the release; it has
     * no time limit (like symfony's stores; PHP's max_execution_time still applies).
     * A wait that would close a cycle of waits across processes (this process
     * holds a lock that the holder of this one waits for, directly or not) is
     * refused at once by the extension's deadlock detection and is not retried.
     *
     * @throws LockConflictedException when waiting would deadlock: the message holds the
     *   cycle ("Deadlock detected: ..."), getPrevious() is the \DistLock\DeadlockException;
     *   release every lock this process holds, back off briefly and redo the unit of work
     * @throws LockExpiredException  when the key's lifetime ran out meanwhile (the lease is released)
     * @throws LockStorageException  on network, protocol or server errors
     * @throws \ValueError for a resource the extension refuses, saying why
     */
    public function waitAndSave(Key $key): void
    {
        $name = (string) $key;
        $hadToken = $key->hasState(self::class);
        $token = $this->token($key);
        $ttl = $this->initialTtl;

        // A read key is promoted at once or not at all: waiting for the other
        // readers while holding a read lease is the readers-writer deadlock.
        if (self::mode($key) === 'read') {
            $this->save($key);

            return;
        }
        // A key that was saved before may hold the lock already: waiting for
        // our own lease to end would never be woken. Refresh it instead.
        if ($hadToken) {
            $asked = microtime(true);
            if ($this->refreshIfOurs($name, $token, $ttl, $key, 'save')) {
                $key->reduceLifetime($ttl - (microtime(true) - $asked));
                $this->saved($key);

                return;
            }
        }

        $start = microtime(true);
        $lease = $this->waitFor($key, fn (\DistLock $c) => $this->mutexOnly
            ? $c->lock($name, $ttl, self::WAIT_SLICE, token: $token)
            : $c->lockExclusive($name, $ttl, self::WAIT_SLICE, token: $token));
        if (!$this->mutexOnly) {
            $this->remember($key, 'write', $lease);
        }
        $this->reduceLifetimeAfterWait($key, $lease, $ttl, $start);

        $this->saved($key);
    }

    /**
     * Runs a blocking acquire of WAIT_SLICE seconds until it succeeds (no
     * time limit) and detaches the lease. A wait the extension refuses as a
     * deadlock (\DistLock\DeadlockException) is not retried.
     *
     * @param callable(\DistLock): \DistLock\Lock $acquire
     *
     * @throws LockConflictedException when the wait would deadlock (the cycle in the
     *   message, the DeadlockException as previous)
     */
    private function waitFor(Key $key, callable $acquire): \DistLock\Lock
    {
        while (true) {
            try {
                $lease = $this->exclusive($acquire, $acquire, $key);
                break;
            } catch (DeadlockException $e) {
                // Not a wait that ran out: the extension refused the wait because it
                // would close a cycle of waits across processes (this key's holder
                // waits, directly or not, for a lock this process holds). Waiting
                // again would be refused again, or deadlock: the caller is to release
                // what it holds and redo its unit of work. (A class the extension
                // has had since deadlock detection; catching it is harmless before.)
                throw $this->conflict((string) $key, 'The "%s" lock was not acquired: ' . str_replace('%', '%%', $e->getMessage()), 'waiting would deadlock', $e);
            } catch (LockTimeoutException) {
                // No limit: wait again.
            } catch (\Exception $e) {
                // Held under another kind (e.g. an older RedisStore's or Laravel's string
                // lock): the extension does not wait on that, so poll as symfony's Lock
                // does for stores that cannot block (100 ms, with jitter).
                if (!self::isKindError($e)) {
                    throw $e;
                }
                usleep(random_int(90000, 110000));
            }
        }
        $lease->detach();

        return $lease;
    }

    /**
     * The lease began between $start and now. Counting from $start is the
     * safe bound and costs nothing; after a wait longer than a tenth of the
     * ttl, ask Redis how much is left instead (one more round trip).
     */
    private function reduceLifetimeAfterWait(Key $key, \DistLock\Lock $lease, float $ttl, float $start): void
    {
        if (microtime(true) - $start <= $ttl / 10) {
            $key->reduceLifetime($ttl - (microtime(true) - $start));
        } else {
            $asked = microtime(true);
            $left = $this->call(static fn () => $lease->remainingLifetime(), $key, 'save');
            $key->reduceLifetime($left - (microtime(true) - $asked));
        }
    }

    /**
     * Resets the lease of $key to $ttl seconds if the key still holds the lock
     * (owner-checked).
     *
     * @param float $ttl seconds; 0 or less lets the lock expire at once (LockExpiredException)
     *
     * @throws LockConflictedException when the key does not hold the lock (lost, expired, never saved)
     * @throws LockExpiredException    when the key's lifetime ran out meanwhile (the lease is released)
     * @throws LockStorageException    on network, protocol or server errors
     * @throws InvalidTtlException     for a ttl that is not finite or larger than 1e9
     */
    public function putOffExpiration(Key $key, float $ttl): void
    {
        if (is_nan($ttl) || $ttl > self::MAX_TTL) {
            throw new InvalidTtlException(\sprintf('"%s()" expects a TTL of at most 1e9 seconds, got %s.', __METHOD__, $ttl));
        }
        $name = (string) $key;
        if (!$key->hasState(self::class)) {
            throw new LockConflictedException(\sprintf('The "%s" lock was not saved by this key.', $name));
        }
        $token = $key->getState(self::class);
        $key->reduceLifetime($ttl);

        if ($ttl <= 0) {
            // Redis cannot hold a lease of no time; symfony's stores let it lapse.
            $this->checkNotExpired($key);
        }

        if (self::mode($key) === 'read') {
            $h = $this->handle($key, 'read');
            $held = $h !== null && $this->call(static fn () => $h->refresh($ttl), $key, 'refresh');
        } else {
            $held = $this->refreshIfOurs($name, $token, $ttl, $key, 'refresh');
        }
        if (!$held) {
            $this->lost($key, 'refresh');
            throw new LockConflictedException(\sprintf('The "%s" lock is no longer held by this key.', $name));
        }

        $this->checkNotExpired($key);
    }

    /**
     * Releases the lock if $key holds it (owner-checked compare-and-delete; wakes
     * a waiter). A key that was never saved, or whose lock was lost, is silently
     * ignored. The key forgets its token: a later save() uses a fresh one.
     *
     * @throws LockStorageException on network, protocol or server errors
     */
    public function delete(Key $key): void
    {
        if (!$key->hasState(self::class)) {
            return;
        }
        $name = (string) $key;
        $token = $key->getState(self::class);
        $mode = self::mode($key);
        $released = false;
        try {
            if ($mode === null) {
                // The mutex (sharedLocks: false, Redlock), or saved by a store of before
                // the shared locks: the mutex's release.
                $released = $this->call(static fn (\DistLock $c) => $c->release($name, $token), $key, 'release');
            } elseif (($h = $this->handle($key, $mode)) !== null) {
                // The readers-writer release: it also wakes the waiters of the other side.
                $released = $this->call(static fn () => $h->release(), $key, 'release');
            }
        } catch (\Exception $e) {
            if (!self::isForeignKey($e) && !self::isKindError($e)) {
                throw $e;
            }
        }
        if (!$released) {
            $this->lost($key, 'release');
        }
        $key->removeState(self::class);
        if ($mode !== null) {
            $key->removeState(self::MODE);
        }
        if ($key->hasState(self::SAVED)) {
            $key->removeState(self::SAVED);
        }
        unset($this->handles[$key]);
    }

    /**
     * @return bool whether $key holds the lock right now (one round trip; none for a key never saved)
     *
     * @throws LockStorageException on network, protocol or server errors
     */
    public function exists(Key $key): bool
    {
        if (!$key->hasState(self::class)) {
            return false;
        }
        $name = (string) $key;
        $token = $key->getState(self::class);

        $mode = self::mode($key);
        if ($mode !== null && !($mode === 'write' && $this->mutexOnly)) {
            $h = $this->handle($key, $mode);
            $held = $h !== null && $this->call(static fn () => $h->isAcquired(), $key, 'check');
        } else {
            try {
                $held = $this->call(static fn (\DistLock $c) => $c->owner($name), $key, 'check') === $token;
            } catch (\Exception $e) {
                if (!self::isForeignKey($e) && !self::isKindError($e)) {
                    throw $e;
                }
                $held = false;
            }
        }
        if (!$held) {
            $this->lost($key, 'check');
        }

        return $held;
    }

    /**
     * Runs $readersWriter, or $mutex on a Redlock client: the first
     * "not offered on Redlock" ValueError switches the store to the mutex.
     */
    private function exclusive(callable $readersWriter, callable $mutex, Key $key): mixed
    {
        if (!$this->mutexOnly) {
            try {
                return $this->call($readersWriter, $key, 'save');
            } catch (\ValueError $e) {
                if (!self::refusedByRedlock($e)) {
                    throw $e;
                }
                $this->mutexOnly = true;
            }
        }

        return $this->call($mutex, $key, 'save');
    }

    /** The extension's ValueError for a readers-writer call on a Redlock client (primitives.c). */
    private static function refusedByRedlock(\ValueError $e): bool
    {
        return str_contains($e->getMessage(), 'not offered on Redlock');
    }

    /**
     * This process's handle on $key's lease of $mode ('read' or 'write'),
     * adopted by token when the key comes from elsewhere; null when the key
     * holds no such lease (lost, expired, released).
     *
     * @throws LockStorageException on network, protocol or server errors
     */
    private function handle(Key $key, string $mode): ?\DistLock\Lock
    {
        $cached = $this->handles[$key] ?? null;
        if ($cached !== null && $cached[0] === getmypid() && $cached[1] === $mode) {
            return $cached[2];
        }
        $name = (string) $key;
        $token = $key->getState(self::class);
        try {
            $h = $this->call(static fn (\DistLock $c) => $mode === 'read' ? $c->restoreShared($name, $token) : $c->restoreExclusive($name, $token), $key, 'check');
        } catch (\Exception $e) {
            // Not held with this token (call() wraps the extension's
            // LockLostException), or held under another kind (a mutex, a
            // semaphore): not a lease of this key.
            if ($e->getPrevious() instanceof LockLostException || self::isKindError($e)) {
                return null;
            }
            throw $e;
        }
        $h->detach();
        $this->remember($key, $mode, $h);

        return $h;
    }

    /** 'read' or 'write' for a key this store saved; null for a key never saved (or by a store of before the shared locks). */
    private static function mode(Key $key): ?string
    {
        return $key->hasState(self::MODE) ? $key->getState(self::MODE) : null;
    }

    private function remember(Key $key, string $mode, \DistLock\Lock $h): void
    {
        $key->setState(self::MODE, $mode);
        $this->handles[$key] = [getmypid(), $mode, $h];
    }

    /**
     * saveRead() of a key that holds a lease already: a read key's lease is
     * reset to $ttl, the write key is demoted. False when it holds none.
     */
    private function keepAsRead(Key $key, float $ttl): bool
    {
        $mode = self::mode($key);
        if ($mode === null || ($h = $this->handle($key, $mode)) === null) {
            return false;
        }
        if ($mode === 'write') {
            if (!$this->call(static fn () => $h->demote($ttl), $key, 'save')) {
                return false;
            }
            $this->remember($key, 'read', $h);

            return true;
        }

        return $this->call(static fn () => $h->refresh($ttl), $key, 'save');
    }

    /**
     * Owner-checked refresh: true when $name is held with $token (lease reset to
     * $ttl), false when it is free or held by another owner.
     *
     * @throws LockStorageException on network, protocol or server errors
     */
    private function refreshIfOurs(string $name, string $token, float $ttl, Key $key, string $what): bool
    {
        if (!$this->mutexOnly) {
            // The write side is a readers-writer exclusive lease: refreshed through
            // its handle (adopted by token when the key comes from elsewhere). A
            // mutex refresh by token would be refused as another kind.
            $h = $this->handle($key, 'write');

            return $h !== null && $this->call(static fn () => $h->refresh($ttl), $key, $what);
        }
        try {
            return $this->call(static fn (\DistLock $c) => $c->refresh($name, $token, $ttl), $key, $what);
        } catch (\Exception $e) {
            if (self::isForeignKey($e) || self::isKindError($e)) {
                return false;
            }
            throw $e;
        }
    }

    /**
     * Whether Redis refused a command because the key holds another type: a
     * lock of another kind owns it (symfony's RedisStore keeps a sorted set
     * under the same name when the prefix is ''). That is a definite answer
     * from the server, "not ours", not a failure.
     */
    private static function isForeignKey(\Throwable $e): bool
    {
        if (!$e instanceof LockStorageException) {
            return false;
        }
        $previous = $e->getPrevious();

        return $previous instanceof ConnectionException && str_contains($previous->getMessage(), 'WRONGTYPE');
    }

    /**
     * Whether the extension refused a call because the name is held under
     * another kind ("one name, one kind": a mutex, a readers-writer lock, a
     * semaphore): DistLock\LockKindException, a definite "not this key's
     * lease", not a failure.
     */
    private static function isKindError(\Throwable $e): bool
    {
        if ($e instanceof LockStorageException && $e->getPrevious() !== null) {
            $e = $e->getPrevious();
        }

        return $e instanceof \DistLock\LockKindException;
    }

    /** A save of $key succeeded: remembered (SAVED), then the key's lifetime is checked. */
    private function saved(Key $key): void
    {
        $key->setState(self::SAVED, true);
        $this->checkNotExpired($key);
    }

    /**
     * The resource is held by another key: logged at info (symfony's Lock logs its own
     * "Failed to acquire" line too; this one says why), and the exception to throw.
     *
     * @param string $message sprintf format of the exception's message, %s = the resource
     * @param string $reason  what holds it, for the log's context
     */
    private function conflict(string $name, string $message, string $reason, ?\Throwable $previous = null): LockConflictedException
    {
        $this->logger?->info('Conflict on the "{resource}" lock: {reason}.', ['resource' => $name, 'reason' => $reason]);

        return new LockConflictedException(\sprintf($message, $name), 0, $previous);
    }

    /**
     * A saved key's lease is gone (expired, or deleted or taken by someone else)
     * although the key was not deleted: logged at warning, once per loss (the key
     * is no longer counted as saved). No token in the context.
     *
     * @param string $operation what found it: 'refresh', 'release' or 'check'
     */
    private function lost(Key $key, string $operation): void
    {
        if (!$key->hasState(self::SAVED)) {
            return;
        }
        $key->removeState(self::SAVED);
        $this->logger?->warning('The "{resource}" lock was lost: this key\'s lease is no longer held (it expired, or another client deleted it); found by {operation}.', [
            'resource' => (string) $key,
            'operation' => $operation,
        ]);
    }

    /** The key's owner token, made on first use: 32 hex characters from the CSPRNG. */
    private function token(Key $key): string
    {
        if (!$key->hasState(self::class)) {
            $key->setState(self::class, bin2hex(random_bytes(16)));
        }

        return $key->getState(self::class);
    }

    /**
     * Runs one extension call, mapping its errors to symfony/lock's exceptions.
     * LockTimeoutException (and its DeadlockException) passes through (waitFor() handles it).
     */
    private function call(callable $op, Key $key, string $what): mixed
    {
        try {
            return $op($this->client);
        } catch (ConnectionException $e) {
            throw new LockStorageException(\sprintf('Failed to %s the "%s" lock: %s', $what, $key, $e->getMessage()), 0, $e);
        } catch (LockTimeoutException $e) {
            throw $e;
        } catch (\DistLock\Exception $e) {
            throw new LockStorageException(\sprintf('Failed to %s the "%s" lock: %s', $what, $key, $e->getMessage()), 0, $e);
        } catch (\ValueError $e) {
            // A \ValueError, not symfony's InvalidArgumentException: Lock::acquire() wraps
            // every \Exception in "Failed to acquire the ... lock." and the reason would be
            // left in getPrevious(); an \Error reaches the caller with it.
            throw new \ValueError(\sprintf('Cannot %s the "%s" lock: %s', $what, $key, self::why($e->getMessage())), 0, $e);
        }
    }

    /** The extension's reason, in the store's terms (the resource is the lock name). */
    private static function why(string $message): string
    {
        if (str_contains($message, '($name) must not be empty')) {
            return 'the resource name is empty; distlock names (and so symfony/lock resources on this store) are 1 to 1024 bytes';
        }
        if (str_contains($message, '($name)')) {
            return 'the resource name is not a valid distlock name (1 to 1024 bytes): ' . $message;
        }
        return $message;
    }

    /**
     * Like symfony's ExpiringStoreTrait: a key whose lifetime ran out is released
     * (errors swallowed, the expiry is the issue to report) and reported.
     *
     * @throws LockExpiredException
     */
    private function checkNotExpired(Key $key): void
    {
        if ($key->isExpired()) {
            try {
                $this->delete($key);
            } catch (\Exception) {
                // Keep the original issue visible.
            }
            throw new LockExpiredException(\sprintf('Failed to store the "%s" lock.', $key));
        }
    }
}
