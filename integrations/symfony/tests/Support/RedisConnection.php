<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests\Support;

// symfony's AbstractRedisStoreTestCase::getRedisConnection(), typed for the
// client there is: its 5.4 declares `: object`, its 7.x and 8.x a union of
// \Redis, Relay, \RedisArray, \RedisCluster and \Predis\ClientInterface. A
// child's return type is checked against it when the class is declared, so
// each variant names one class of that union: \Redis where phpredis is
// built, \Predis\ClientInterface where it is not (PHP 8.5: symfony 8 only).
if (extension_loaded('redis')) {
    trait RedisConnection
    {
        protected function getRedisConnection(): \Redis
        {
            return Redis::connection();
        }
    }
} else {
    trait RedisConnection
    {
        protected function getRedisConnection(): \Predis\ClientInterface
        {
            return Redis::connection();
        }
    }
}
