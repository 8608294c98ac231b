<?php

declare(strict_types=1);

namespace DistLock\Laravel;

/**
 * The end of a logical request in a long-running worker (Laravel Octane):
 * releases every lease that the handled request (or Octane task) still holds,
 * detached ones excepted, with \DistLock::endRequest(). Laravel's own cache
 * locks (Cache::lock(), CacheLock) are detached by design and stay held until
 * released or expired, as Laravel's semantics want.
 *
 * Registered by DistLockServiceProvider for Octane's RequestTerminated and
 * TaskTerminated events when Octane is installed. Not for TickTerminated: a
 * tick may run while a request of the same worker still holds its leases.
 */
final class EndRequest
{
    public const OCTANE_EVENTS = [
        'Laravel\Octane\Events\RequestTerminated',
        'Laravel\Octane\Events\TaskTerminated',
    ];

    /** True when Laravel Octane is installed (its events can fire). */
    public static function octaneInstalled(): bool
    {
        return interface_exists('Laravel\Octane\Contracts\OperationTerminated');
    }

    /** @return int the number of leases released (\DistLock::endRequest()) */
    public function handle(object $event): int
    {
        return \DistLock::endRequest();
    }
}
