<?php

namespace App\Providers;

use DistLock\Laravel\Events\LockEvent;
use Illuminate\Support\Facades\Event;
use Illuminate\Support\ServiceProvider;

/**
 * The lock-event tests' listener: with DLTEST_BOOT_LISTENER=1 it listens to every
 * lock event from boot(), as an app's EventServiceProvider, Telescope or Pulse do;
 * the events are kept in self::$events (dltest:events prints them).
 */
class LockListenerProvider extends ServiceProvider
{
    /** @var list<LockEvent> */
    public static array $events = [];

    public function boot(): void
    {
        if (getenv('DLTEST_BOOT_LISTENER') === '1') {
            Event::listen(LockEvent::class, fn (LockEvent $e) => self::$events[] = $e);
        }
    }
}
