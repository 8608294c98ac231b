<?php

declare(strict_types=1);

namespace DistLock\Laravel\Events;

/**
 * Every distlock lock event implements this interface: listen to it to receive
 * them all (Laravel's dispatcher calls the listeners of an event's interfaces):
 *
 *     Event::listen(\DistLock\Laravel\Events\LockEvent::class, fn ($e) => ...);
 *
 * The data is that of the extension's \DistLock\Event (see CarriesLockData),
 * copied into plain properties so that queued listeners can serialize it.
 */
interface LockEvent
{
}
