<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests;

use DistLock\Symfony\Tests\Support\Redis;
use DistLock\Symfony\Tests\Support\Worker;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Symfony\Component\Lock\LockFactory;
use Symfony\Component\Lock\Store\RedisStore;

/**
 * A rolling deploy from symfony's RedisStore to DistLockStore (default
 * configuration: built from the URI, the key is the resource) stays
 * exclusive: a process on one store holds a resource, a process on the other
 * store is refused it (both directions; read and write locks on each side),
 * then gets it once the holder has released.
 *
 * Across the two stores a read lock excludes a read lock too: RedisStore keeps
 * its holders in a sorted set, DistLockStore in its own key layout, and each
 * takes the other's key as a holder it cannot share with (safe, not shared).
 */
final class MixedDeployTest extends TestCase
{
    /** @return iterable<string, array{string, string, string, string}> */
    public static function deploys(): iterable
    {
        foreach (['redisstore' => 'distlock', 'distlock' => 'redisstore'] as $holder => $other) {
            foreach (['write', 'read'] as $held) {
                foreach (['write', 'read'] as $asked) {
                    yield "$holder $held-locks, $other asks $asked" => [$holder, $held, $other, $asked];
                }
            }
        }
    }

    /** @dataProvider deploys */
    #[DataProvider('deploys')]
    public function testTheOtherStoreIsRefusedWhileOneHoldsThenGetsIt(string $holder, string $held, string $other, string $asked): void
    {
        $resource = 'sf:mixed:' . bin2hex(random_bytes(6));
        $w = new Worker('mixhold', $holder, $held, $resource, '1.5');
        $this->assertSame('held', $w->line(), "$holder took the $held lock in its process");

        $lock = self::factory($other)->createLock($resource, 30.0, false);
        $got = $asked === 'read' ? $lock->acquireRead() : $lock->acquire();
        $this->assertFalse($got, "$other was granted a $asked lock while $holder holds a $held lock");
        $this->assertFalse($lock->isAcquired());

        // Blocking: granted after the holder's release (a DistLockStore waiter
        // notices a RedisStore release within its poll cap, 2 s; RedisStore polls).
        $asked === 'read' ? $lock->acquireRead(true) : $lock->acquire(true);
        $grantedAt = hrtime(true);
        $this->assertTrue($lock->isAcquired());
        $line = $w->line();
        $this->assertStringStartsWith('releasing ', $line);
        $this->assertGreaterThan((int) substr($line, 10), $grantedAt, "$other was granted before $holder released");
        $this->assertSame(0, $w->wait());

        // And now the holder's store is refused while the other holds.
        $theirs = self::factory($holder)->createLock($resource, 30.0, false);
        $this->assertFalse($held === 'read' ? $theirs->acquireRead() : $theirs->acquire(), "$holder was granted while $other holds");
        $lock->release();
        $this->assertTrue($held === 'read' ? $theirs->acquireRead() : $theirs->acquire(), "$holder is granted once $other released");
        $theirs->release();
        $this->assertSame(0, Redis::raw()->exists($resource), 'nothing left under the resource key');
    }

    /**
     * An older format's lock (a plain string key: symfony 5.1's RedisStore,
     * Laravel's lock) is another kind for the extension, which does not wait on
     * it: save() is a conflict, and acquire(true) polls until the key is gone.
     */
    public function testAnOlderStringLockIsAConflictAndABlockingAcquireWaitsItOut(): void
    {
        foreach (['write', 'read'] as $mode) {
            $resource = 'sf:mixed:string:' . bin2hex(random_bytes(6));
            Redis::raw()->set($resource, 'someone-else', ['px' => 600]);
            $lock = self::factory('distlock')->createLock($resource, 10.0, false);
            $this->assertFalse($mode === 'read' ? $lock->acquireRead() : $lock->acquire(), "$mode granted over a string lock");
            $t = microtime(true);
            $mode === 'read' ? $lock->acquireRead(true) : $lock->acquire(true);
            $waited = microtime(true) - $t;
            $this->assertTrue($lock->isAcquired());
            $this->assertGreaterThan(0.3, $waited, "$mode: granted before the string lock expired");
            $this->assertLessThan(5.0, $waited);
            $lock->release();
        }
    }

    private static function factory(string $store): LockFactory
    {
        return new LockFactory($store === 'redisstore' ? new RedisStore(Redis::connection()) : Redis::defaultStore());
    }
}
