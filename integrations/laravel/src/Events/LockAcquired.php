<?php

declare(strict_types=1);

namespace DistLock\Laravel\Events;

/**
 * A lock was granted (operation 'acquire', outcome 'acquired'): $wait is the time it
 * waited for other holders, $fencingToken its token when fencing is on.
 */
final class LockAcquired implements LockEvent
{
    use CarriesLockData;
}
