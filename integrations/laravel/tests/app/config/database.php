<?php
return [
    'default' => 'sqlite',
    'connections' => [
        'sqlite' => ['driver' => 'sqlite', 'database' => ':memory:', 'prefix' => '', 'foreign_key_constraints' => true],
    ],
    'migrations' => 'migrations',
    'redis' => [
        // phpredis where it is built (no php8.5-redis in Debian yet: the
        // PHP 8.5 root runs the tests with REDIS_CLIENT=predis).
        'client' => env('REDIS_CLIENT', 'phpredis'),
        // phpredis applies this prefix to every key Laravel writes; distlock's
        // store puts it in front of its lock keys too.
        'options' => ['prefix' => env('REDIS_PREFIX', 'dlapp_')],
        'default' => [
            'host' => env('REDIS_HOST', '127.0.0.1'),
            'port' => (int) env('REDIS_PORT', 6379),
            'password' => env('REDIS_PASSWORD'),
            'database' => (int) env('REDIS_DB', 3),
            'timeout' => 2.0,
            'read_timeout' => 60.0,
        ],
    ],
];
