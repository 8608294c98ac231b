<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests\SymfonySuite;

use DistLock\Symfony\Tests\Support\Redis;
use DistLock\Symfony\Tests\Support\RedisConnection;
use Symfony\Component\Lock\PersistingStoreInterface;
use Symfony\Component\Lock\Tests\Store\AbstractRedisStoreTestCase;
use Symfony\Component\Lock\Tests\Store\BlockingStoreTestTrait;
use Symfony\Component\Lock\Tests\Store\SharedLockStoreTestTrait;

/**
 * symfony/lock's own Redis store tests (Tests/Store/ of symfony's source, taken
 * at run time, unmodified: AbstractRedisStoreTestCase, which brings
 * AbstractStoreTestCase and ExpiringStoreTestTrait, with the blocking and
 * shared-lock traits) against DistLockStore in its default configuration
 * (built from the URI: the key is the resource, as with RedisStore). Its
 * testBackwardCompatibility holds a lock with an older RedisStore (a string
 * key) and expects the store to be refused it. Needs SYMFONY_LOCK_TESTS_DIR.
 */
final class DistLockStoreRedisSuiteTest extends AbstractRedisStoreTestCase
{
    use BlockingStoreTestTrait;
    use SharedLockStoreTestTrait;
    use RedisConnection;

    /** The leases a run before this one left under the same resource names. */
    protected function setUp(): void
    {
        parent::setUp();
        Redis::deleteKeysStartingWith(static::class);
    }

    public function getStore(): PersistingStoreInterface
    {
        return Redis::defaultStore();
    }
}
