<?php
// The store named "redis" is a distlock store (values in "redis-values"), so
// that Laravel's own tests of Cache::store('redis')->lock() run on distlock;
// DISTLOCK_TEST_LARAVEL_LOCKS=1 makes it Laravel's own RedisStore instead
// (used to check the harness against Laravel's own lock).
$laravelLocks = (bool) env('DISTLOCK_TEST_LARAVEL_LOCKS', false);
return [
    'default' => env('CACHE_STORE', env('CACHE_DRIVER', 'distlock')),
    'stores' => [
        'distlock' => ['driver' => 'distlock', 'store' => 'redis-values', 'connection' => 'default'],
        'redis' => $laravelLocks
            ? ['driver' => 'redis', 'connection' => 'default']
            : ['driver' => 'distlock', 'store' => 'redis-values', 'connection' => 'default'],
        'redis-values' => ['driver' => 'redis', 'connection' => 'default'],
        'array' => ['driver' => 'array', 'serialize' => false],
    ],
    'prefix' => env('CACHE_PREFIX', 'dltest'),
];
