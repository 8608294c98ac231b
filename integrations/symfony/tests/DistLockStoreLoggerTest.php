<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests;

use DistLock\Symfony\DistLockStore;
use DistLock\Symfony\Tests\Support\MemoryLogger;
use DistLock\Symfony\Tests\Support\Redis;
use PHPUnit\Framework\TestCase;
use Psr\Log\LoggerAwareInterface;
use Psr\Log\LogLevel;
use Symfony\Component\Lock\Exception\LockConflictedException;
use Symfony\Component\Lock\Key;
use Symfony\Component\Lock\LockFactory;

/**
 * DistLockStore's PSR-3 logging: conflicts at info, lost leases at warning
 * (once per loss, found by refresh, release or check), nothing on a clean
 * cycle, never a token. Against a real redis-server (DISTLOCK_TEST_REDIS);
 * PHPUnit 9.6 to 11.5, psr/log 1.1 to 3.
 */
final class DistLockStoreLoggerTest extends TestCase
{
    private static function resource(string $what): string
    {
        return 'sf:log:' . $what . ':' . bin2hex(random_bytes(6));
    }

    /** @return iterable<string, array{bool}> */
    public static function modes(): iterable
    {
        yield 'readers-writer write side' => [true];
        yield 'mutex (sharedLocks: false)' => [false];
    }

    private static function store(MemoryLogger $logger, bool $sharedLocks = true, float $ttl = 30.0): DistLockStore
    {
        return new DistLockStore(Redis::client(['prefix' => '']), $ttl, $sharedLocks, [], $logger);
    }

    /** @dataProvider modes */
    #[\PHPUnit\Framework\Attributes\DataProvider('modes')]
    public function testAConflictIsLoggedAtInfoWithTheResourceAndNoToken(bool $sharedLocks): void
    {
        $resource = self::resource('conflict');
        $holderLog = new MemoryLogger();
        $holder = self::store($holderLog, $sharedLocks);
        $held = new Key($resource);
        $holder->save($held);

        $log = new MemoryLogger();
        $store = self::store($log, $sharedLocks);
        $other = new Key($resource);
        try {
            $store->save($other);
            $this->fail('save() of a held resource must conflict');
        } catch (LockConflictedException) {
        }
        $this->assertCount(1, $log->records, $log->dump());
        $this->assertSame(LogLevel::INFO, $log->records[0]['level']);
        $this->assertSame($resource, $log->records[0]['context']['resource']);
        $this->assertStringContainsString('{resource}', $log->records[0]['message']);
        $this->assertStringContainsString('held by another key', $log->dump());
        // No owner token, neither the holder's nor the refused key's.
        $this->assertStringNotContainsString($held->getState(DistLockStore::class), $log->dump());
        $this->assertStringNotContainsString($other->getState(DistLockStore::class), $log->dump());

        // Releasing the refused key (symfony's Lock::release() does) is not a lost lease.
        $store->delete($other);
        $this->assertCount(1, $log->records, $log->dump());

        // The holder's clean release logs nothing.
        $holder->delete($held);
        $this->assertSame([], $holderLog->records, $holderLog->dump());
    }

    public function testAReadConflictAndAPromotionRefusalAreLoggedAtInfo(): void
    {
        $resource = self::resource('read');
        $log = new MemoryLogger();
        $store = self::store($log);
        $writer = new Key($resource);
        $store->save($writer);
        try {
            $store->saveRead(new Key($resource));
            $this->fail('saveRead() of a write-locked resource must conflict');
        } catch (LockConflictedException) {
        }
        $store->delete($writer);
        $this->assertCount(1, $log->at(LogLevel::INFO), $log->dump());
        $this->assertStringContainsString('write-locked', $log->dump());

        $a = new Key($resource);
        $b = new Key($resource);
        $store->saveRead($a);
        $store->saveRead($b);
        try {
            $store->save($a);
            $this->fail('promoting one of two readers must conflict');
        } catch (LockConflictedException) {
        }
        $this->assertCount(2, $log->at(LogLevel::INFO), $log->dump());
        $this->assertStringContainsString('read-locked by other keys', $log->dump());
        $store->delete($a);
        $store->delete($b);
        $this->assertSame([], $log->at(LogLevel::WARNING), $log->dump());
    }

    /** @dataProvider modes */
    #[\PHPUnit\Framework\Attributes\DataProvider('modes')]
    public function testALeaseThatExpiredIsLoggedAsLostByRefreshOnce(bool $sharedLocks): void
    {
        $resource = self::resource('expired');
        $log = new MemoryLogger();
        $store = self::store($log, $sharedLocks, 0.2);
        $key = new Key($resource);
        $store->save($key);
        usleep(500000); // the 0.2 s lease runs out (a time-based behaviour: 2.5 times the ttl)
        $key->resetLifetime();
        try {
            $store->putOffExpiration($key, 10.0);
            $this->fail('refreshing a lapsed lease must conflict');
        } catch (LockConflictedException) {
        }
        $warnings = $log->at(LogLevel::WARNING);
        $this->assertCount(1, $warnings, $log->dump());
        $this->assertSame($resource, $warnings[0]['context']['resource']);
        $this->assertSame('refresh', $warnings[0]['context']['operation']);
        $this->assertStringContainsString('was lost', $log->dump());
        $this->assertStringNotContainsString($key->getState(DistLockStore::class), $log->dump());

        // Found once: the release and the check that follow do not log it again.
        $this->assertFalse($store->exists($key));
        $store->delete($key);
        $this->assertCount(1, $log->at(LogLevel::WARNING), $log->dump());
    }

    /** @dataProvider modes */
    #[\PHPUnit\Framework\Attributes\DataProvider('modes')]
    public function testALeaseDeletedByAnotherClientIsLoggedAsLostByRelease(bool $sharedLocks): void
    {
        $resource = self::resource('deleted');
        $log = new MemoryLogger();
        $store = self::store($log, $sharedLocks);
        $key = new Key($resource);
        $store->save($key);
        $this->assertSame(1, Redis::raw()->del($resource));

        $store->delete($key);
        $warnings = $log->at(LogLevel::WARNING);
        $this->assertCount(1, $warnings, $log->dump());
        $this->assertSame('release', $warnings[0]['context']['operation']);
        $this->assertSame($resource, $warnings[0]['context']['resource']);
    }

    public function testALostLeaseFoundByACheckIsLoggedAndSymfonysLockReportsIt(): void
    {
        $resource = self::resource('check');
        $log = new MemoryLogger();
        $store = self::store($log);
        $lock = (new LockFactory($store))->createLock($resource, 30.0);
        $this->assertTrue($lock->acquire());
        $this->assertTrue($lock->isAcquired());
        $this->assertSame([], $log->records, $log->dump());

        $this->assertSame(1, Redis::raw()->del($resource));
        $this->assertFalse($lock->isAcquired());
        $warnings = $log->at(LogLevel::WARNING);
        $this->assertCount(1, $warnings, $log->dump());
        $this->assertSame('check', $warnings[0]['context']['operation']);
        $lock->release();
        $this->assertCount(1, $log->at(LogLevel::WARNING), $log->dump());
    }

    public function testACleanCycleLogsNothingAndSetLoggerWorks(): void
    {
        $store = new DistLockStore(Redis::client(['prefix' => '']), 30.0);
        $this->assertInstanceOf(LoggerAwareInterface::class, $store);
        // No logger: a conflict still works (nothing to log to).
        $resource = self::resource('clean');
        $a = new Key($resource);
        $store->save($a);
        try {
            $store->save(new Key($resource));
            $this->fail('must conflict');
        } catch (LockConflictedException) {
        }

        $log = new MemoryLogger();
        $store->setLogger($log);
        $lock = (new LockFactory($store))->createLock(self::resource('clean'), 30.0);
        $this->assertTrue($lock->acquire(true));
        $lock->refresh();
        $this->assertTrue($lock->isAcquired());
        $lock->release();
        $this->assertFalse($lock->isAcquired());
        $read = (new LockFactory($store))->createLock(self::resource('clean-read'), 30.0);
        $this->assertTrue($read->acquireRead(true));
        $read->release();
        $this->assertSame([], $log->records, $log->dump());

        try {
            $store->save(new Key($resource));
            $this->fail('must conflict');
        } catch (LockConflictedException) {
        }
        $this->assertCount(1, $log->at(LogLevel::INFO), $log->dump());
        $store->delete($a);
    }
}
