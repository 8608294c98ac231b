<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests\SymfonySuite;

use DistLock\Symfony\Tests\Support\Redis;
use Symfony\Component\Lock\PersistingStoreInterface;
use Symfony\Component\Lock\Test\AbstractStoreTestCase;

/**
 * symfony/lock's public store test case (Symfony\Component\Lock\Test\, shipped
 * with symfony/lock since 6.x) against DistLockStore.
 */
final class DistLockStorePublicTestCaseTest extends AbstractStoreTestCase
{
    protected function getStore(): PersistingStoreInterface
    {
        return Redis::store();
    }
}
