<?php

declare(strict_types=1);

namespace DistLock\Laravel;

use DistLock\Laravel\Events\LockAcquired;
use DistLock\Laravel\Events\LockAcquireFailed;
use DistLock\Laravel\Events\LockConnectionFailed;
use DistLock\Laravel\Events\LockEvent;
use DistLock\Laravel\Events\LockLost;
use DistLock\Laravel\Events\LockRefreshed;
use DistLock\Laravel\Events\LockReleased;
use Illuminate\Contracts\Container\Container;
use Illuminate\Contracts\Debug\ExceptionHandler;

/**
 * Turns the extension's observer events (\DistLock::addObserver(), one
 * \DistLock\Event per lock operation) into Laravel events (Events\*), through
 * the app's event dispatcher.
 *
 * The observer is process-wide: once registered it sees every lock of the
 * process, whichever DistLock took it (the app's clients, one a package or a
 * service provider made with `new \DistLock()`). Laravel tells nobody when a
 * listener is added (Event::listen() in a test, a controller or a job), so the
 * observer cannot wait for the first listener without missing the locks taken
 * after it through an instance made earlier (issue 37.5):
 *
 *  - mode 'auto' (default): registered when the app has booted (sync() in the
 *    provider's booted callback), whatever listens by then; each operation
 *    then asks the dispatcher hasListeners() for its event class (and the
 *    LockEvent interface) before building anything: with no listener no event
 *    object is built. Locks taken before the app has booted (in another
 *    provider's register() or boot()) are not seen;
 *  - 'always': registered from the provider's register() on, so that locks
 *    taken while the app boots are seen too;
 *  - 'off': never (no cost at all).
 *
 * One observer per process (per PHP request under php-fpm, where the extension
 * frees observers at request end and this class's statics go with them; once
 * per worker under Octane, queue workers and tests, which make several apps in
 * one process: the latest app's dispatcher gets the events).
 * config('distlock.events'), env DISTLOCK_EVENTS.
 *
 * A listener's exception does not break the lock operation: it is reported to
 * the app's exception handler (report()), as Laravel reports a failing
 * listener of a terminating event, and the operation's result stands.
 */
final class LockEventBridge
{
    /** @var list<class-string<LockEvent>> */
    public const EVENTS = [
        LockAcquired::class, LockAcquireFailed::class, LockReleased::class,
        LockRefreshed::class, LockLost::class, LockConnectionFailed::class,
    ];

    public const MODES = ['auto', 'always', 'off'];

    /** The app whose dispatcher gets the events (the latest that synced). */
    private static ?Container $app = null;

    /**
     * $app's dispatcher, kept (a container look-up per operation would cost 1 µs, more
     * than the rest of the check) and replaced when the app rebinds 'events'
     * (Event::fake() does). @var \Illuminate\Contracts\Events\Dispatcher|null
     */
    private static ?object $events = null;

    private static bool $registered = false;

    /**
     * Points the events at $app's dispatcher and registers the observer when
     * config('distlock.events') asks for it ('always'; 'auto' once $app has
     * booted, or a listener exists already) and it is not registered yet.
     *
     * @return bool whether the observer is registered now
     * @throws InvalidConfigurationException when distlock.events is not 'auto', 'always' or 'off'
     */
    public static function sync(Container $app): bool
    {
        $mode = $app->bound('config') ? ($app['config']['distlock.events'] ?? 'auto') : 'auto';
        if (!in_array($mode, self::MODES, true)) {
            throw new InvalidConfigurationException("distlock: distlock.events (DISTLOCK_EVENTS) must be 'auto', 'always' or 'off'");
        }
        if (self::$app !== $app) {
            self::$app = $app;
            self::$events = $app->rebinding('events', static function ($rebound, $events): void {
                if (self::$app === $rebound) {
                    self::$events = $events;
                }
            });
        }
        if (self::$registered || $mode === 'off' || !self::observerAvailable()) {
            return self::$registered;
        }
        if ($mode === 'always' || self::booted($app) || self::anyListener(self::$events)) {
            \DistLock::addObserver([self::class, 'observe']);
            self::$registered = true;
        }
        return self::$registered;
    }

    /** Whether this process's observer is registered (tests, diagnostics). */
    public static function registered(): bool
    {
        return self::$registered;
    }

    /** True when the extension has the observer API (distlock with DistLock\Event). */
    public static function observerAvailable(): bool
    {
        return method_exists(\DistLock::class, 'addObserver');
    }

    /**
     * The observer: the Laravel event of $e, dispatched when something listens to it.
     * @param \DistLock\Event $e
     */
    public static function observe(object $e): void
    {
        $events = self::$events;
        if ($events === null) {
            return;
        }
        $class = self::eventClass($e->operation, $e->outcome);
        if (!$events->hasListeners($class) && !$events->hasListeners(LockEvent::class) && !self::isFake($events)) {
            return;
        }
        try {
            $events->dispatch(new $class($e));
        } catch (\Throwable $t) {
            $app = self::$app;
            if ($app !== null && $app->bound(ExceptionHandler::class)) {
                $app->make(ExceptionHandler::class)->report($t);
                return;
            }
            throw $t;   // no handler: the extension swallows it and counts stats()['observer_errors']
        }
    }

    /** @return class-string<LockEvent> the event class of an operation's outcome */
    public static function eventClass(string $operation, string $outcome): string
    {
        return match (true) {
            $outcome === 'error' => LockConnectionFailed::class,
            $outcome === 'lost' => LockLost::class,
            $operation === 'acquire' => $outcome === 'acquired' ? LockAcquired::class : LockAcquireFailed::class,
            $operation === 'release' => LockReleased::class,
            default => LockRefreshed::class,   // refresh, renewal: 'refreshed'
        };
    }

    /** Whether $app has booted (its booted callbacks run after the flag is set). */
    private static function booted(Container $app): bool
    {
        return method_exists($app, 'isBooted') && $app->isBooted();
    }

    /** @param \Illuminate\Contracts\Events\Dispatcher $events */
    private static function anyListener(object $events): bool
    {
        if (self::isFake($events) || $events->hasListeners(LockEvent::class)) {
            return true;
        }
        foreach (self::EVENTS as $class) {
            if ($events->hasListeners($class)) {
                return true;
            }
        }
        return false;
    }

    /** Event::fake(): it decides itself which events it records, whoever listens. */
    private static function isFake(object $events): bool
    {
        return $events instanceof \Illuminate\Support\Testing\Fakes\EventFake;
    }

    /** Tests only: forget the state (the extension's observer stays unless removed). @internal */
    public static function reset(): void
    {
        if (self::$registered && self::observerAvailable()) {
            \DistLock::removeObserver([self::class, 'observe']);
        }
        self::$registered = false;
        self::$app = null;
        self::$events = null;
    }
}
