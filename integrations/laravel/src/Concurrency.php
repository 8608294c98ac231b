<?php

declare(strict_types=1);

namespace DistLock\Laravel;

use DistLock\Laravel\Limiters\ConcurrencyLimiterBuilder;

/**
 * Entry point of distlock's concurrency limiter, the counterpart of Laravel's
 * Redis::funnel():
 *
 *     use DistLock\Laravel\Concurrency;
 *
 *     Concurrency::funnel('render')->limit(4)->then(fn () => ..., fn () => ...);
 */
final class Concurrency
{
    /**
     * A limiter builder named $name on the app's distlock client
     * (app(\DistLock::class): DISTLOCK_URL or distlock.connection), or on
     * $connection: a \DistLock client or a Laravel Redis connection.
     */
    public static function funnel(string $name, mixed $connection = null): ConcurrencyLimiterBuilder
    {
        return new ConcurrencyLimiterBuilder($connection ?? app(\DistLock::class), $name);
    }
}
