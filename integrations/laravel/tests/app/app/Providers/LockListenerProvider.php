<?php

namespace App\Providers;

use DistLock\Laravel\Events\LockEvent;
use Illuminate\Support\Facades\Event;
use Illuminate\Support\ServiceProvider;

/**
 * The lock-event tests' listener: with DLTEST_BOOT_LISTENER=1 it listens to every
 * lock event from boot(), as an app's EventServiceProvider, Telescope or Pulse do;
 * the events are kept in self::$events (dltest:events prints them). With
 * DLTEST_EARLY_CLIENT=1 it makes a DistLock of its own in register(), before
 * the app has a client (dltest:events --early locks through it).
 */
class LockListenerProvider extends ServiceProvider
{
    /** @var list<LockEvent> */
    public static array $events = [];

    /** With DLTEST_EARLY_CLIENT=1: a DistLock this provider makes in register(), as a package would. */
    public static ?\DistLock $early = null;

    public function register(): void
    {
        if (getenv('DLTEST_EARLY_CLIENT') === '1') {
            self::$early = new \DistLock('redis://' . (getenv('REDIS_HOST') ?: '127.0.0.1') . ':' . (getenv('REDIS_PORT') ?: '6379'));
        }
    }

    public function boot(): void
    {
        if (getenv('DLTEST_BOOT_LISTENER') === '1') {
            Event::listen(LockEvent::class, fn (LockEvent $e) => self::$events[] = $e);
        }
    }
}
