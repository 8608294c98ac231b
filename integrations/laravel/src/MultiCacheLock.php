<?php

declare(strict_types=1);

namespace DistLock\Laravel;

use DistLock\DeadlockException as DistLockDeadlock;
use DistLock\LockTimeoutException as DistLockTimeout;
use Illuminate\Contracts\Cache\LockTimeoutException;

/**
 * All of a set of names or none (distlock's own: Laravel has no multi-lock):
 * `Cache::lockMany(["account:$a", "account:$b"], 10)->block(5, fn () => ...)`.
 * Two callers taking overlapping sets in any order cannot deadlock. Each name
 * keeps its own lease, as a Cache::lock() of that name (the same key and a
 * string owner, so Cache::lock($name) sees it held).
 *
 * The leases outlive this object and the request like Cache::lock()'s, but
 * this object holds their owners: release() from it (or let them expire).
 * Network failures throw \DistLock\ConnectionException.
 */
class MultiCacheLock
{
    use RunsThenReleases;
    use OtherKinds;

    /** @var list<\DistLock\Lock> the held leases, detached */
    private array $held = [];

    /**
     * @param list<string> $names      1 to 64 distinct lock names without prefix
     * @param int|float    $seconds    lease of each name, s; 0 = forever_ttl
     * @param float        $foreverTtl lease used for $seconds = 0, s
     */
    public function __construct(
        private \DistLock $client,
        private array $names,
        private int|float $seconds,
        private float $foreverTtl = 86400.0,
    ) {
    }

    /**
     * One attempt at all the names; runs $callback and releases, if given.
     *
     * @return mixed false when any name is held; else true, or the callback's value
     * @throws \DistLock\ConnectionException
     * @throws \LogicException|\ValueError|\TypeError as DistLock::lockAll()
     */
    public function get($callback = null)
    {
        $leases = self::otherKindIs(null, fn () => $this->client->tryLockAll($this->names, $this->lease()));
        if ($leases === null) {
            return false;
        }

        return $this->hold($leases, $callback);
    }

    /**
     * Waits up to $seconds for all the names (woken by a release of any it
     * waits for), then runs $callback and releases, if given.
     *
     * @return mixed true, or the callback's value
     * @throws LockTimeoutException the wait ran out, or was refused at once because it would
     *   deadlock with locks other processes hold and wait for (the cycle in the message, a
     *   \DistLock\DeadlockException as previous); nothing is held then
     * @throws \DistLock\ConnectionException
     */
    public function block($seconds, $callback = null)
    {
        try {
            $leases = $this->waitOutOtherKinds(max(0.0, (float) $seconds),
                fn (float $wait) => $this->client->lockAll($this->names, $this->lease(), $wait));
        } catch (DistLockDeadlock $e) {
            throw new LockTimeoutException('Locks [' . implode(', ', $this->names) . '] were not acquired: ' . $e->getMessage(), 0, $e);
        } catch (DistLockTimeout $e) {
            throw new LockTimeoutException('Locks [' . implode(', ', $this->names) . "] were not acquired within {$seconds} s.", 0, $e);
        }
        if ($leases === null) {
            throw new LockTimeoutException('Locks [' . implode(', ', $this->names) . "] were not acquired within {$seconds} s (held as another kind of lock).");
        }

        return $this->hold($leases, $callback);
    }

    /**
     * Releases every name this object holds (owner-checked, each waking its waiters).
     *
     * @return bool true when all were still held and are now free
     * @throws \DistLock\ConnectionException
     */
    public function release(): bool
    {
        $all = $this->held !== [];
        foreach ($this->held as $lease) {
            $all = $lease->release() && $all;
        }
        $this->held = [];

        return $all;
    }

    /** @return list<string> the names */
    public function names(): array
    {
        return $this->names;
    }

    /** @param list<\DistLock\Lock> $leases */
    private function hold(array $leases, $callback)
    {
        foreach ($leases as $lease) {
            $lease->detach();
        }
        $this->held = $leases;
        return $this->runThenRelease($callback);
    }

    private function lease(): float
    {
        $s = (float) $this->seconds;

        return $s > 0 ? $s : $this->foreverTtl;
    }
}
