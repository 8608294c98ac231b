<?php

declare(strict_types=1);

namespace DistLock\Laravel\Events;

/**
 * A held lock was given back (operation 'release', outcome 'released'); $held is how long
 * it was held, $implicit true when the release came from a destructor, the end of
 * synchronized(), endRequest() or the end of the request (reported after the fact).
 * A release that found the lease already gone is LockLost.
 */
final class LockReleased implements LockEvent
{
    use CarriesLockData;
}
