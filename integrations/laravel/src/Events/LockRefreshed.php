<?php

declare(strict_types=1);

namespace DistLock\Laravel\Events;

/**
 * A lease was extended (outcome 'refreshed'): by the caller (operation 'refresh':
 * Lock::refresh(), CacheLock::refresh()) or by the watchdog in the background (operation
 * 'renewal', $renewal true, reported at the PHP thread's next distlock call).
 */
final class LockRefreshed implements LockEvent
{
    use CarriesLockData {
        CarriesLockData::__construct as private copy;
    }

    /** True for the watchdog's background renewal (operation 'renewal'). */
    public readonly bool $renewal;

    public function __construct(object $e)
    {
        $this->copy($e);
        $this->renewal = $e->operation === 'renewal';
    }
}
