<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests\SymfonySuite;

use DistLock\Symfony\Tests\Support\Redis;
use Symfony\Component\Lock\PersistingStoreInterface;
use Symfony\Component\Lock\Tests\Store\AbstractStoreTestCase;
use Symfony\Component\Lock\Tests\Store\BlockingStoreTestTrait;
use Symfony\Component\Lock\Tests\Store\ExpiringStoreTestTrait;
use Symfony\Component\Lock\Tests\Store\SharedLockStoreTestTrait;

/**
 * symfony/lock's own store tests (Tests/Store/ of symfony's source, taken at
 * run time, unmodified: the abstract store tests, the blocking, expiring and
 * shared-lock traits) against DistLockStore. Needs SYMFONY_LOCK_TESTS_DIR.
 */
final class DistLockStoreSymfonyTest extends AbstractStoreTestCase
{
    use BlockingStoreTestTrait;
    use ExpiringStoreTestTrait;
    use SharedLockStoreTestTrait;

    /** Microseconds, as symfony's Redis store tests use. */
    protected function getClockDelay(): int
    {
        return 250000;
    }

    /** The leases a run before this one left under the same resource names. */
    protected function setUp(): void
    {
        parent::setUp();
        Redis::deleteKeysStartingWith('sftest:' . static::class);
    }

    protected function getStore(): PersistingStoreInterface
    {
        return Redis::store();
    }
}
