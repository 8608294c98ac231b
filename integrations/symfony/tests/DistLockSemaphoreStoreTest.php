<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests;

use DistLock\ConnectionException;
use DistLock\Symfony\DistLockSemaphoreStore;
use DistLock\Symfony\Tests\Support\Redis;
use DistLock\Symfony\Tests\Support\Worker;
use PHPUnit\Framework\TestCase;
use Symfony\Component\Semaphore\Exception\InvalidArgumentException;
use Symfony\Component\Semaphore\Exception\SemaphoreExpiredException;
use Symfony\Component\Semaphore\Key;
use Symfony\Component\Semaphore\SemaphoreFactory;

/**
 * DistLockSemaphoreStore's own tests (symfony/semaphore), against a real
 * redis-server (DISTLOCK_TEST_REDIS), other processes through tests/worker.php.
 * Written for PHPUnit 9.6 to 11.5.
 */
final class DistLockSemaphoreStoreTest extends TestCase
{
    private static function resource(string $what): string
    {
        return 'sem:' . $what . ':' . bin2hex(random_bytes(6));
    }

    private static function factory(): SemaphoreFactory
    {
        return new SemaphoreFactory(new DistLockSemaphoreStore(Redis::client()));
    }

    public function testEightProcessesNeverHoldMoreThanTheLimit(): void
    {
        $resource = self::resource('limit');
        $counter = 'sftest:' . $resource . ':holders';
        $workers = [];
        for ($i = 0; $i < 8; $i++) {
            $workers[] = new Worker('semloop', $resource, '2', '60', $counter);
        }
        foreach ($workers as $w) {
            $this->assertSame('over the limit: 0', $w->line(120.0));
            $this->assertSame(0, $w->wait());
        }
        $this->assertSame(['holders' => 0, 'used' => 0], Redis::client()->permits($resource));
        Redis::raw()->del($counter);
    }

    public function testAKeySerializesAcrossProcesses(): void
    {
        $resource = self::resource('serialize');
        $key = new Key($resource, 2);
        $semaphore = self::factory()->createSemaphoreFromKey($key, 30.0, false);
        $this->assertTrue($semaphore->acquire());
        $this->assertSame(['holders' => 1, 'used' => 1], Redis::client()->permits($resource));

        $w = new Worker('semrelease', base64_encode(serialize($key)));
        $this->assertSame('before 1', $w->line());
        $this->assertSame('after 0', $w->line());
        $this->assertSame(0, $w->wait());
        $this->assertFalse($semaphore->isAcquired());
        $this->assertSame(['holders' => 0, 'used' => 0], Redis::client()->permits($resource));
    }

    public function testAKilledHoldersPermitComesBackAtItsLeaseEnd(): void
    {
        $resource = self::resource('killed');
        $w = new Worker('semhold', $resource, '1', '1.0');
        $this->assertStringStartsWith('held ', $w->line());
        $killedAt = microtime(true);
        $w->kill(9);
        $w->wait();

        $mine = self::factory()->createSemaphore($resource, 1, 1, 10.0, false);
        $this->assertFalse($mine->acquire(), 'the dead holder\'s permit is still leased');
        while (!$mine->acquire()) {
            $this->assertLessThan(5.0, microtime(true) - $killedAt, 'the permit came back within its 1 s lease (and a busy machine\'s margin)');
            usleep(10000);
        }
        $this->assertGreaterThan(0.5, microtime(true) - $killedAt, 'not before its lease ended');
        $mine->release();
    }

    public function testSaveTwiceRefreshesAndOtherKeysCountAgainstTheLimit(): void
    {
        $store = new DistLockSemaphoreStore(Redis::client());
        $resource = self::resource('twice');
        $a = new Key($resource, 3, 2);
        $store->save($a, 5.0);
        $store->save($a, 30.0);
        $this->assertSame(['holders' => 1, 'used' => 2], Redis::client()->permits($resource), 'saved twice, counted once');
        $this->assertGreaterThan(25000, Redis::raw()->zScore('sftest:' . $resource, $a->getState(DistLockSemaphoreStore::class)) - (int) (microtime(true) * 1000));
        $store->putOffExpiration($a, 60.0);
        $this->assertTrue($store->exists($a));
        $store->delete($a);
        $this->assertFalse($store->exists($a));
        $store->delete($a); // a Key that holds nothing: ignored
        $this->expectException(SemaphoreExpiredException::class);
        $store->putOffExpiration($a, 10.0);
    }

    /**
     * A bad ttl reaches the caller as with symfony/semaphore's own RedisStore:
     * the store throws symfony's InvalidArgumentException itself (unwrapped),
     * and Semaphore::acquire()/refresh(), which wrap every \Exception of a store
     * but SemaphoreAcquiringException/SemaphoreExpiredException, wrap it in their
     * RuntimeException with it as previous, for both stores alike.
     */
    public function testABadTtlReachesTheCallerAsWithSymfonysRedisStore(): void
    {
        $resource = self::resource('badttl');
        $stores = [
            'RedisStore' => new \Symfony\Component\Semaphore\Store\RedisStore(Redis::connection()),
            'DistLockSemaphoreStore' => new DistLockSemaphoreStore(Redis::client()),
        ];
        $seen = [];
        foreach ($stores as $name => $store) {
            try {
                $store->save(new Key($resource, 1), -1.0);
                $seen[$name]['store'] = 'no exception';
            } catch (\Throwable $e) {
                $seen[$name]['store'] = get_class($e);
            }
            $semaphore = (new SemaphoreFactory($store))->createSemaphore($resource, 1, 1, -1.0, false);
            try {
                $semaphore->acquire();
                $seen[$name]['acquire'] = 'no exception';
            } catch (\Throwable $e) {
                $seen[$name]['acquire'] = [get_class($e), $e->getPrevious() ? get_class($e->getPrevious()) : null];
            }
        }
        $this->assertSame(InvalidArgumentException::class, $seen['RedisStore']['store']);
        $this->assertSame(
            [\Symfony\Component\Semaphore\Exception\RuntimeException::class, InvalidArgumentException::class],
            $seen['RedisStore']['acquire'],
        );
        $this->assertSame($seen['RedisStore'], $seen['DistLockSemaphoreStore']);
    }

    public function testErrors(): void
    {
        $store = new DistLockSemaphoreStore(Redis::client());
        $key = new Key(self::resource('errors'), 1);
        foreach ([0.0, -1.0, 2e9] as $ttl) {
            try {
                $store->save($key, $ttl);
                $this->fail("ttl $ttl was accepted");
            } catch (InvalidArgumentException $e) {
                $this->assertStringContainsString('greater than 0', $e->getMessage());
            }
        }
        try {
            (new DistLockSemaphoreStore(new \DistLock(Redis::redlockUris())))->save(new Key('r', 1), 10.0);
            $this->fail('a Redlock client took permits');
        } catch (\ValueError $e) {
            $this->assertStringContainsString('not offered on Redlock', $e->getMessage());
        }
        // putOffExpiration() checks the same way.
        try {
            $store->putOffExpiration($key, -1.0);
            $this->fail('ttl -1 was accepted by putOffExpiration()');
        } catch (InvalidArgumentException $e) {
            $this->assertStringContainsString('greater than 0', $e->getMessage());
        }
        // A server that is not there: the extension's ConnectionException, never "the limit is reached".
        $down = new DistLockSemaphoreStore(new \DistLock('redis://127.0.0.1:1', ['connect_timeout' => 0.2]));
        try {
            $down->save(new Key('r', 1), 10.0);
            $this->fail('saved on no server');
        } catch (ConnectionException $e) {
            $this->assertStringContainsString('127.0.0.1:1', $e->getMessage());
        }
    }
}
