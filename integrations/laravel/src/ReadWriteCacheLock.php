<?php

declare(strict_types=1);

namespace DistLock\Laravel;

use DistLock\DeadlockException as DistLockDeadlock;
use DistLock\LockLostException;
use DistLock\LockTimeoutException as DistLockTimeout;
use Illuminate\Cache\Lock;
use Illuminate\Contracts\Cache\LockTimeoutException;

/**
 * One side of a readers-writer lock, in the shape of Laravel's cache locks
 * (distlock's own: Laravel has no shared locks). `Cache::readLock($name)`
 * gives a shared lock (many holders at once), `Cache::writeLock($name)` the
 * exclusive one, which waits until no reader is left; while a writer waits,
 * new readers wait too (writer preference). Both block on Redis and are woken
 * by the release that lets them in.
 *
 * Like Cache::lock(), a lease outlives this object and the request: release()
 * it, restore it elsewhere with the same owner (`Cache::readLock($name, 0,
 * $owner)->release()`), or let it expire. Seconds as Cache::lock()'s (0 = the
 * store's forever_ttl). Network failures throw \DistLock\ConnectionException.
 * The writer side is not Cache::lock()'s mutex: take a name's exclusive side
 * with writeLock() wherever it is also read-locked.
 */
class ReadWriteCacheLock extends Lock
{
    use RunsThenReleases;
    use OtherKinds;

    /**
     * @param \DistLock   $client     prefix = Redis prefix + cache prefix
     * @param string      $name       lock name without prefix
     * @param int|float   $seconds    lease, s; 0 = forever_ttl
     * @param string|null $owner      null: a fresh 128-bit CSPRNG token (32 hex chars)
     * @param bool        $shared     true: the read (shared) side; false: the write side
     * @param float       $foreverTtl lease used for $seconds = 0, s
     */
    public function __construct(
        private \DistLock $client,
        $name,
        $seconds,
        $owner = null,
        private bool $shared = true,
        private float $foreverTtl = 86400.0,
    ) {
        parent::__construct($name, $seconds, $owner ?? bin2hex(random_bytes(16)));
    }

    /**
     * One attempt, no waiting.
     *
     * @return bool false when a writer holds the name or waits for it (read side), or
     *   anyone holds it (write side)
     * @throws \DistLock\ConnectionException
     */
    public function acquire(): bool
    {
        $lease = self::otherKindIs(null, fn () => $this->shared
            ? $this->client->tryLockShared($this->name, $this->lease(), token: $this->owner)
            : $this->client->tryLockExclusive($this->name, $this->lease(), token: $this->owner));
        $lease?->detach();

        return $lease !== null;
    }

    /**
     * Waits up to $seconds (woken by the release, no polling), then runs
     * $callback and releases, if given.
     *
     * @param int|float     $seconds max wait, s
     * @return mixed true, or the callback's value
     * @throws LockTimeoutException the wait ran out; or it was refused at once because it
     *   would deadlock (a cycle of waits across processes): the message holds the cycle
     *   and the previous exception is a \DistLock\DeadlockException
     * @throws \DistLock\ConnectionException
     */
    public function block($seconds, $callback = null)
    {
        $wait = max(0.0, (float) $seconds);
        $side = $this->shared ? 'Read lock' : 'Write lock';
        try {
            $lease = $this->waitOutOtherKinds($wait, fn (float $left) => $this->shared
                ? $this->client->lockShared($this->name, $this->lease(), $left, token: $this->owner)
                : $this->client->lockExclusive($this->name, $this->lease(), $left, token: $this->owner));
        } catch (DistLockDeadlock $e) {
            throw new LockTimeoutException("$side [{$this->name}] was not acquired: {$e->getMessage()}", 0, $e);
        } catch (DistLockTimeout $e) {
            throw new LockTimeoutException("$side [{$this->name}] was not acquired within {$seconds} s.", 0, $e);
        }
        if ($lease === null) {
            throw new LockTimeoutException("$side [{$this->name}] was not acquired within {$seconds} s (held as another kind of lock).");
        }
        $lease->detach();

        return $this->runThenRelease($callback);
    }

    /**
     * Owner-checked release; wakes the waiters it lets in.
     *
     * @return bool true when this owner held it and now does not
     * @throws \DistLock\ConnectionException
     */
    public function release(): bool
    {
        $lease = $this->held();

        return $lease !== null && $lease->release();
    }

    /**
     * Deletes the name whoever holds it, writer and readers alike
     * (DistLock::forceRelease(), for administration).
     *
     * @throws \DistLock\ConnectionException
     */
    public function forceRelease(): void
    {
        $this->client->forceRelease($this->name);
    }

    /**
     * This owner, while it holds its side of the lock; else null. (A read
     * lock has as many owners as readers: each sees only itself.)
     *
     * @throws \DistLock\ConnectionException
     */
    public function getCurrentOwner(): ?string
    {
        return $this->held() !== null ? $this->owner : null;
    }

    /**
     * Whether anyone holds the name, writer or readers (DistLock::isLocked()),
     * as Laravel 13.7's Lock::isLocked() means for its locks; the inherited
     * one would ask getCurrentOwner(), i.e. "held by this owner".
     *
     * @throws \DistLock\ConnectionException
     */
    public function isLocked(): bool
    {
        return $this->client->isLocked($this->name);
    }

    /** @throws \DistLock\ConnectionException */
    public function isOwnedByCurrentProcess(): bool
    {
        return $this->getCurrentOwner() !== null;
    }

    /**
     * Resets the lease if this owner still holds it.
     *
     * @param int|float|null $seconds new lease, s; null: the lock's own; 0: forever_ttl
     * @throws \DistLock\ConnectionException
     */
    public function refresh($seconds = null): bool
    {
        $lease = $this->held();

        return $lease !== null && $lease->refresh($this->lease($seconds ?? $this->seconds));
    }

    /** Whether this is the read (shared) side. */
    public function isShared(): bool
    {
        return $this->shared;
    }

    /** This owner's lease on its side, adopted by token (detached); null when it holds none. */
    private function held(): ?\DistLock\Lock
    {
        try {
            $lease = self::otherKindIs(null, fn () => $this->shared
                ? $this->client->restoreShared($this->name, $this->owner)
                : $this->client->restoreExclusive($this->name, $this->owner));
        } catch (LockLostException) {
            return null;
        }
        if ($lease === null) {
            return null;
        }
        $lease->detach();

        return $lease;
    }

    private function lease(int|float|null $seconds = null): float
    {
        $s = (float) ($seconds ?? $this->seconds);

        return $s > 0 ? $s : $this->foreverTtl;
    }
}
