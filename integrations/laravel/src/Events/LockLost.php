<?php

declare(strict_types=1);

namespace DistLock\Laravel\Events;

/**
 * A lease this process held is gone (outcome 'lost'): expired or taken over. $operation
 * says how it was found: 'lost' (the watchdog or the lost-lease watch), 'release' (a
 * release found it no longer ours: release() false), 'refresh' or 'renewal'. $held:
 * how long it had been held (release and 'lost').
 */
final class LockLost implements LockEvent
{
    use CarriesLockData;
}
