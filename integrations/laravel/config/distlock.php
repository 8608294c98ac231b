<?php

/*
 * distlock for Laravel. Publish with:
 *   php artisan vendor:publish --tag=distlock-config
 *
 * Durations are seconds (float). null means "the extension's default"
 * (its INI setting distlock.*, see the extension's README).
 */
return [

    /*
     * Server URI: redis://[[user]:password@]host[:port][/db][?timeout=S&connect_timeout=S]
     * or unix:///path/to/redis.sock[?db=N]. When null, the server is taken
     * from the Redis connection named below (host, port, username,
     * password, database) in config/database.php.
     */
    'url' => env('DISTLOCK_URL'),

    /* Redis connection (config/database.php "redis") used when 'url' is null. */
    'connection' => env('DISTLOCK_REDIS_CONNECTION', 'default'),

    /*
     * Laravel events of lock operations (DistLock\Laravel\Events\LockAcquired, ...):
     * 'auto' registers the extension's observer when the app has booted: every
     * lock of the process from then on is seen by the listeners that exist at
     * the time, whichever DistLock took it (each operation costs a
     * hasListeners() check; with no listener no event is built); 'always'
     * registers it from the provider's register(), so that locks taken while
     * the app boots are seen too; 'off' never (no cost at all).
     */
    'events' => env('DISTLOCK_EVENTS', 'auto'),

    /*
     * Laravel means "no expiry" by a lock time of 0 seconds (Cache::lock($name),
     * ShouldBeUnique without $uniqueFor, WithoutOverlapping without expireAfter).
     * distlock never writes a key without a TTL: such locks get this lease
     * instead, so that a worker that died holding one frees it eventually.
     * Default 86400 s (24 h): the scheduler's own withoutOverlapping() default
     * (1440 minutes), and longer than any sane queue backlog.
     */
    'forever_ttl' => (float) env('DISTLOCK_FOREVER_TTL', 86400),

    /*
     * Options of the app-facing client, app(\DistLock::class). Every DistLock
     * option; null values are not passed (the extension's default applies).
     * The cache store uses the same options, with its own prefix (the Redis
     * connection's prefix + the cache prefix, like Laravel's own Redis lock).
     */
    'options' => [
        'prefix' => env('DISTLOCK_PREFIX', 'lock:'),  // key prefix of app(\DistLock::class)
        'ttl' => null,              // default lease, s (extension default 30)
        'wait' => null,             // default max wait of lock(), s (extension default 10)
        'retry_delay' => null,      // polling fallback only, s
        'retry_jitter' => null,     // polling fallback only, s
        'connect_timeout' => null,  // s
        'timeout' => null,          // read/write timeout, s
        'username' => null,         // null: from the Redis connection when 'url' is null
        'password' => null,         // null: from the Redis connection when 'url' is null
        'database' => null,         // null: from the Redis connection when 'url' is null
        'persistent' => env('DISTLOCK_PERSISTENT', false), // bool, or a pool id string
        'resources' => [],          // e.g. ['account' => ['ttl' => 4, 'wait' => 2]]
        'watchdog' => null,         // bool: renew held leases every ttl/3 (not for detached cache locks)
        'max_hold' => null,         // s, ceiling on hold time under the watchdog
        'on_lost' => null,          // 'ignore' | 'throw'
        'fencing' => null,          // bool
        'fair' => null,             // bool: FIFO hand-over
    ],
];
