<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests\SymfonySuite;

use DistLock\Symfony\DistLockSemaphoreStore;
use DistLock\Symfony\Tests\Support\Redis;
use Symfony\Component\Semaphore\PersistingStoreInterface;
use Symfony\Component\Semaphore\Tests\Store\AbstractStoreTestCase;

/**
 * symfony/semaphore's own store tests (Tests/Store/AbstractStoreTestCase.php
 * of symfony's source, taken at run time, unmodified) against
 * DistLockSemaphoreStore. Needs SYMFONY_SEMAPHORE_TESTS_DIR.
 */
final class DistLockSemaphoreStoreSymfonyTest extends AbstractStoreTestCase
{
    protected function getStore(): PersistingStoreInterface
    {
        return new DistLockSemaphoreStore(Redis::client());
    }
}
