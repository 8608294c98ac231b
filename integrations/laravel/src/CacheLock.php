<?php

declare(strict_types=1);

namespace DistLock\Laravel;

use DistLock\DeadlockException as DistLockDeadlock;
use DistLock\LockTimeoutException as DistLockTimeout;
use Illuminate\Cache\Lock;
use Illuminate\Contracts\Cache\LockTimeoutException;

/**
 * Laravel's lock semantics on distlock's mechanics.
 *
 * Key and value are those of Laravel's own Redis lock: key = Redis connection
 * prefix + cache prefix + name (the client's prefix holds the first two),
 * value = the owner. The lease is detached from this PHP object: neither its
 * destruction nor the end of the request releases it (ShouldBeUnique takes a
 * lock in a web request that a worker releases with restoreLock()).
 *
 * Seconds are Laravel's lock time; 0 means "no expiry" to Laravel and is
 * mapped to the store's forever_ttl (distlock never writes a key without a TTL).
 * Fractional seconds are honoured. Every method that talks to Redis throws
 * \DistLock\ConnectionException on a network failure: a failure never looks
 * like "held by someone else".
 */
class CacheLock extends Lock
{
    use RunsThenReleases;
    use OtherKinds;

    /**
     * @param \DistLock   $client         prefix = Redis prefix + cache prefix
     * @param string      $name           lock name without prefix
     * @param int|float   $seconds        lease, s; 0 = forever_ttl
     * @param string|null $owner          null: a fresh 128-bit CSPRNG token (32 hex chars)
     * @param float       $foreverTtl     lease used for $seconds = 0, s
     * @param string|null $connectionName Redis connection the lock lives on (getConnectionName())
     */
    public function __construct(
        private \DistLock $client,
        $name,
        $seconds,
        $owner = null,
        private float $foreverTtl = 86400.0,
        private ?string $connectionName = null
    ) {
        parent::__construct($name, $seconds, $owner ?? bin2hex(random_bytes(16)));
    }

    /**
     * One attempt, no waiting.
     *
     * @return bool true when acquired; false when the name is held (by anyone, this owner included)
     * @throws \DistLock\ConnectionException
     */
    public function acquire(): bool
    {
        // Held under another kind (a readLock()/writeLock(), a funnel) is held too.
        $lease = self::otherKindIs(null, fn () => $this->client->tryLock($this->name, $this->lease(), token: $this->owner));
        if ($lease === null) {
            return false;
        }
        $lease->detach();
        return true;
    }

    /**
     * Waits up to $seconds (float) with distlock's blocking wait (woken by the
     * release, no polling), then runs $callback and releases, if given.
     *
     * @param int|float     $seconds  max wait, s
     * @param callable|null $callback
     * @return mixed true, or the callback's value
     * @throws LockTimeoutException   the wait ran out; or it was refused at once because it
     *   would deadlock (a cycle of waits across processes): the message holds the cycle
     *   and the previous exception is a \DistLock\DeadlockException
     * @throws \DistLock\ConnectionException
     */
    public function block($seconds, $callback = null)
    {
        try {
            $lease = $this->waitOutOtherKinds(max(0.0, (float) $seconds),
                fn (float $wait) => $this->client->lock($this->name, $this->lease(), $wait, token: $this->owner));
        } catch (DistLockDeadlock $e) {
            throw new LockTimeoutException("Lock [{$this->name}] was not acquired: {$e->getMessage()}", 0, $e);
        } catch (DistLockTimeout $e) {
            throw new LockTimeoutException("Lock [{$this->name}] was not acquired within {$seconds} s.", 0, $e);
        }
        if ($lease === null) {
            throw new LockTimeoutException("Lock [{$this->name}] was not acquired within {$seconds} s (held as another kind of lock).");
        }
        $lease->detach();

        return $this->runThenRelease($callback);
    }

    /**
     * Owner-checked release (compare-and-delete), wakes a waiter.
     *
     * @return bool true when it was held by this owner and is now free
     * @throws \DistLock\ConnectionException
     */
    public function release(): bool
    {
        return self::otherKindIs(false, fn () => $this->client->release($this->name, $this->owner));
    }

    /**
     * Deletes the lock whoever holds it.
     *
     * @throws \DistLock\ConnectionException
     */
    public function forceRelease(): void
    {
        $this->client->forceRelease($this->name);
    }

    /**
     * The owner the lock is held under right now.
     *
     * @return string|null null when free
     * @throws \DistLock\ConnectionException
     */
    public function getCurrentOwner(): ?string
    {
        return $this->client->owner($this->name);
    }

    /** @throws \DistLock\ConnectionException */
    public function isOwnedByCurrentProcess(): bool
    {
        return $this->isOwnedBy($this->owner);
    }

    /**
     * Whether the lock is held by $owner right now, compared with === as
     * Laravel's Lock::isOwnedBy() does (11.x, 12.x): isOwnedBy(null) is true
     * while the lock is free, as on Laravel's Redis lock.
     *
     * @param string|null $owner
     * @throws \DistLock\ConnectionException
     */
    public function isOwnedBy($owner): bool
    {
        return $this->getCurrentOwner() === $owner;
    }

    /**
     * Whether anyone holds the lock.
     *
     * @throws \DistLock\ConnectionException
     */
    public function isLocked(): bool
    {
        return $this->client->isLocked($this->name);
    }

    /**
     * Resets the lease if this owner still holds the lock (Laravel 12's
     * RedisLock::refresh() semantics: null = the lock's own time, 0 or less =
     * "no expiry", which distlock maps to forever_ttl).
     *
     * @param int|float|null $seconds new lease, s
     * @return bool true when still held by this owner (lease reset); false otherwise
     * @throws \DistLock\ConnectionException
     */
    public function refresh($seconds = null): bool
    {
        return self::otherKindIs(false, fn () => $this->client->refresh($this->name, $this->owner, $this->lease($seconds ?? $this->seconds)));
    }

    /**
     * The Redis connection this lock lives on (as RedisLock::getConnectionName()).
     */
    public function getConnectionName(): ?string
    {
        return $this->connectionName;
    }

    /** The lease to ask Redis for, in seconds: $seconds, or forever_ttl for 0. */
    private function lease(int|float|null $seconds = null): float
    {
        $s = (float) ($seconds ?? $this->seconds);
        return $s > 0 ? $s : $this->foreverTtl;
    }
}
