<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests;

use DistLock\ConnectionException;
use DistLock\Symfony\DistLockStore;
use DistLock\Symfony\Tests\Support\MemoryLogger;
use DistLock\Symfony\Tests\Support\Redis;
use DistLock\Symfony\Tests\Support\Worker;
use PHPUnit\Framework\TestCase;
use Symfony\Component\Lock\Exception\InvalidTtlException;
use Symfony\Component\Lock\Exception\LockAcquiringException;
use Symfony\Component\Lock\Exception\LockConflictedException;
use Symfony\Component\Lock\Exception\LockExpiredException;
use Symfony\Component\Lock\Exception\LockStorageException;
use Symfony\Component\Lock\Key;
use Symfony\Component\Lock\LockFactory;
use Symfony\Component\Lock\Store\RedisStore;

/**
 * DistLockStore's own tests, against a real redis-server (DISTLOCK_TEST_REDIS),
 * other processes through tests/worker.php. Written for PHPUnit 9.6 to 11.5.
 */
final class DistLockStoreTest extends TestCase
{
    private static function resource(string $what): string
    {
        return 'sf:' . $what . ':' . bin2hex(random_bytes(6));
    }

    public function testKeyLayoutAndTtls(): void
    {
        $store = new DistLockStore(Redis::client(['prefix' => '']), 5.0);
        $raw = Redis::raw();
        $key = new Key(self::resource('layout'));

        $store->save($key);
        $token = $key->getState(DistLockStore::class);
        $this->assertIsString($token);
        $this->assertMatchesRegularExpression('/^[0-9a-f]{32}$/', $token);
        // prefix '' : the Redis key is the resource, as with symfony's RedisStore; the value is the
        // writer's mark and the token (one name, one kind: docs/primitives.md).
        $this->assertSame("\0W" . $token, $raw->get((string) $key));
        $pttl = $raw->pttl((string) $key);
        $this->assertGreaterThan(4000, $pttl);
        $this->assertLessThanOrEqual(5000, $pttl);
        $this->assertGreaterThan(4.0, $key->getRemainingLifetime());
        $this->assertLessThanOrEqual(5.0, $key->getRemainingLifetime());

        $store->putOffExpiration($key, 20.0);
        $this->assertGreaterThan(19000, $raw->pttl((string) $key));
        $this->assertLessThanOrEqual(20000, $raw->pttl((string) $key));

        // A short ttl is kept, then the lock lapses.
        $key->resetLifetime();
        $store->putOffExpiration($key, 0.05);
        $this->assertTrue($store->exists($key));
        usleep(200000);
        $this->assertFalse($store->exists($key));

        $prefixed = new DistLockStore(Redis::client(['prefix' => 'app:']));
        $k2 = new Key(self::resource('layout'));
        $prefixed->save($k2);
        $this->assertSame("\0W" . $k2->getState(DistLockStore::class), $raw->get('app:' . $k2));
        $prefixed->delete($k2);
        $this->assertSame(0, $raw->exists('app:' . $k2));
    }

    public function testSaveTwiceRefreshesAndOtherKeysConflict(): void
    {
        $store = Redis::store([], 2.0);
        $raw = Redis::raw();
        $resource = self::resource('twice');
        $key = new Key($resource);
        $other = new Key($resource);

        $store->save($key);
        $raw->pexpire('sftest:' . $resource, 500);
        $store->save($key); // ours: a refresh to the initial ttl
        $this->assertGreaterThan(1500, $raw->pttl('sftest:' . $resource));

        try {
            $store->save($other);
            $this->fail('another key saved a held lock');
        } catch (LockConflictedException) {
        }
        $this->assertFalse($store->exists($other), 'a key that lost the race does not own the lock');
        try {
            $store->putOffExpiration($other, 10.0);
            $this->fail('another key refreshed a held lock');
        } catch (LockConflictedException) {
        }
        $store->delete($other); // never saved: silent, and no effect
        $this->assertTrue($store->exists($key));
        $this->assertFalse($store->exists($other));

        $store->delete($key);
        $this->assertFalse($store->exists($key));
        $store->delete($key); // twice: silent
        $store->save($other);
        $this->assertTrue($store->exists($other));
        $store->delete($other);
    }

    public function testWithPrefixEmptyItExcludesSymfonysRedisStoreOnTheSameResource(): void
    {
        $ours = new DistLockStore(Redis::client(['prefix' => '']));
        $theirs = new RedisStore(Redis::connection());

        // RedisStore holds it (a sorted set under the same key): for us a conflict, not an error.
        $resource = self::resource('mixed');
        $held = new Key($resource);
        $theirs->save($held);
        $key = new Key($resource);
        try {
            $ours->save($key);
            $this->fail('saved over a RedisStore lock');
        } catch (LockConflictedException) {
        }
        $this->assertFalse($ours->exists($key));
        try {
            $ours->putOffExpiration($key, 10.0);
            $this->fail('refreshed a RedisStore lock');
        } catch (LockConflictedException) {
        }
        $ours->delete($key);
        $this->assertTrue($theirs->exists($held));
        $theirs->delete($held);
        $ours->save($key);
        $this->assertTrue($ours->exists($key));

        // And RedisStore does not take ours.
        try {
            $theirs->save(new Key($resource));
            $this->fail('RedisStore saved over a DistLockStore lock');
        } catch (LockConflictedException) {
        }
        $ours->delete($key);
    }

    public function testLostLockIsAConflictAndNotDeletedByItsFormerOwner(): void
    {
        $client = Redis::client();
        $store = new DistLockStore($client);
        $resource = self::resource('lost');
        $key = new Key($resource);
        $store->save($key);
        $this->assertTrue($client->forceRelease($resource));

        $this->assertFalse($store->exists($key));
        try {
            $store->putOffExpiration($key, 10.0);
            $this->fail('refreshed a lost lock');
        } catch (LockConflictedException) {
        }

        $thief = new Key($resource);
        $store->save($thief);
        $store->delete($key); // owner-checked: the new holder keeps it
        $this->assertTrue($store->exists($thief));
        $store->delete($thief);
    }

    public function testExpiredKeyIsNotSavedAndLeavesNothing(): void
    {
        $store = Redis::store();
        $resource = self::resource('expired');
        $key = new Key($resource);
        $key->reduceLifetime(0);
        try {
            $store->save($key);
            $this->fail('saved an expired key');
        } catch (LockExpiredException) {
        }
        $this->assertFalse(Redis::client()->isLocked($resource));

        $key = new Key($resource);
        $store->save($key);
        try {
            $store->putOffExpiration($key, 0.0);
            $this->fail('a ttl of 0 did not expire the key');
        } catch (LockExpiredException) {
        }
        $this->assertFalse(Redis::client()->isLocked($resource));
    }

    public function testBadTtlsAreRefused(): void
    {
        try {
            new DistLockStore(Redis::client(), 0.0);
            $this->fail('initial ttl 0 accepted');
        } catch (InvalidTtlException) {
        }
        $store = Redis::store();
        $key = new Key(self::resource('ttl'));
        $store->save($key);
        $this->expectException(InvalidTtlException::class);
        try {
            $store->putOffExpiration($key, NAN);
        } finally {
            $store->delete($key);
        }
    }

    public function testWaitAndSaveOnAKeyThatHoldsTheLockReturnsAtOnce(): void
    {
        $store = Redis::store();
        $key = new Key(self::resource('rewait'));
        $store->save($key);
        $t = microtime(true);
        $store->waitAndSave($key);
        $this->assertLessThan(1.0, microtime(true) - $t);
        $this->assertTrue($store->exists($key));
        $store->delete($key);
    }

    public function testWaitAndSaveCountsTheLifetimeFromTheGrant(): void
    {
        $resource = self::resource('waitlife');
        $w = new Worker('holdfor', $resource, '0.6');
        $this->assertSame('held', $w->line());
        $store = Redis::store([], 1.0);
        $key = new Key($resource);
        $t = microtime(true);
        $store->waitAndSave($key);
        $waited = microtime(true) - $t;
        $this->assertStringStartsWith('releasing ', $w->line());
        $this->assertSame(0, $w->wait());

        // Waited longer than the 1 s lease's tenth: the lifetime comes from Redis,
        // not from before the wait (which would leave about 0.4 s).
        $this->assertGreaterThan(0.3, $waited);
        $this->assertGreaterThan(0.8, $key->getRemainingLifetime());
        $this->assertLessThanOrEqual(1.0, $key->getRemainingLifetime());
        $this->assertFalse($key->isExpired());
        $this->assertTrue($store->exists($key));
        $store->delete($key);
    }

    public function testLockFactoryLifecycle(): void
    {
        $factory = new LockFactory(Redis::store());
        $resource = self::resource('factory');
        $lock = $factory->createLock($resource, 10.0);
        $this->assertTrue($lock->acquire(true));
        $this->assertTrue($lock->isAcquired());
        $this->assertGreaterThan(9.0, $lock->getRemainingLifetime());
        $this->assertFalse($factory->createLock($resource)->acquire());
        $lock->refresh(30.0);
        $this->assertGreaterThan(29.0, $lock->getRemainingLifetime());
        $lock->release();
        $this->assertFalse($lock->isAcquired());
        $this->assertFalse(Redis::client()->isLocked($resource));

        // autoRelease (symfony's decision) still works through Lock::__destruct.
        $auto = $factory->createLock($resource, 10.0, true);
        $this->assertTrue($auto->acquire());
        unset($auto);
        $this->assertFalse(Redis::client()->isLocked($resource));
    }

    public function testKeySerializesAcrossProcesses(): void
    {
        $factory = new LockFactory(Redis::store());
        $resource = self::resource('serialize');
        $key = new Key($resource);
        $lock = $factory->createLockFromKey($key, 2.0, false);
        $this->assertTrue($lock->acquire());
        $serialized = base64_encode(serialize($key));

        // Another process refreshes it ...
        $w = new Worker('refresh', $serialized, '30');
        $this->assertSame('refreshed 1', $w->line());
        $this->assertSame(0, $w->wait());
        $this->assertGreaterThan(25000, Redis::raw()->pttl('sftest:' . $resource));

        // ... and releases it.
        $w = new Worker('release', $serialized);
        $this->assertSame('before 1', $w->line());
        $this->assertSame('after 0', $w->line());
        $this->assertSame(0, $w->wait());
        $this->assertFalse($lock->isAcquired());
        $this->assertFalse(Redis::client()->isLocked($resource));
    }

    public function testLeasesOutliveTheObjectsAndTheRequestThatMadeThem(): void
    {
        $resource = self::resource('detached');
        $w = new Worker('hold', $resource, '0', '30');
        $line = $w->line();
        $this->assertStringStartsWith('held ', $line);
        $this->assertSame(0, $w->wait());

        // The worker's Lock (autoRelease false), its DistLock and its request are gone: still held.
        $key = unserialize(base64_decode(substr($line, 5)), ['allowed_classes' => [Key::class]]);
        $store = Redis::store();
        $this->assertTrue($store->exists($key));
        try {
            $store->save(new Key($resource));
            $this->fail('a lease ended with the process that made it');
        } catch (LockConflictedException) {
        }
        $store->delete($key);
        $this->assertFalse(Redis::client()->isLocked($resource));

        // With autoRelease true, symfony's Lock releases it when destroyed.
        $w = new Worker('hold', $resource, '1', '30');
        $this->assertStringStartsWith('held ', $w->line());
        $this->assertSame(0, $w->wait());
        $this->assertFalse(Redis::client()->isLocked($resource));
    }

    public function testBlockingAcquireIsWokenByTheReleaseWithoutPolling(): void
    {
        $resource = self::resource('woken');
        $hold = 1.5;
        $w = new Worker('holdfor', $resource, (string) $hold);
        $this->assertSame('held', $w->line());

        $factory = new LockFactory(Redis::store());
        // Warm the connection and Redis's script cache, so that only the wait is counted.
        $warm = $factory->createLock($resource . ':warm', 10.0, false);
        $warm->acquire(true);
        $warm->release();
        $lock = $factory->createLock($resource, 10.0, false);
        $raw = Redis::raw();
        $before = (int) $raw->info('stats')['total_reads_processed'];
        $this->assertTrue($lock->acquire(true));
        $acquiredNs = hrtime(true);
        $after = (int) $raw->info('stats')['total_reads_processed'];

        $releasing = $w->line();
        $this->assertStringStartsWith('releasing ', $releasing);
        $releasingNs = (int) substr($releasing, 10);
        $this->assertSame(0, $w->wait());

        // Mutual exclusion: not before the holder let go; woken by it: well within a second after.
        $this->assertGreaterThan($releasingNs, $acquiredNs);
        $this->assertLessThan(1.0, ($acquiredNs - $releasingNs) / 1e9);
        // Polling every 100 ms (symfony's Lock over this store hidden behind a
        // non-blocking interface) makes about 15 attempts of 2 requests during the
        // hold: 36 to 38 requests measured. The waiter's requests (attempt, block,
        // attempt after the wake-up, Lock's refresh), the holder's release and this
        // INFO come to about 8.
        $this->assertLessThanOrEqual(12, $after - $before, 'requests served while waiting');
        $lock->release();
    }

    public function testReadLocksAreSharedAcrossProcessesAndTheWriterIsWokenWithoutPolling(): void
    {
        $resource = self::resource('shared');
        $first = new Worker('holdfor', $resource, '0.8', 'read');
        $second = new Worker('holdfor', $resource, '1.5', 'read');
        $this->assertSame('held', $first->line());
        $this->assertSame('held', $second->line());

        $factory = new LockFactory(Redis::store());
        // Warm the connection and Redis's script cache, so that only the wait is counted.
        $warm = $factory->createLock($resource . ':warm', 10.0, false);
        $warm->acquire(true);
        $warm->release();

        // A third reader gets in beside the two; a writer does not.
        $reader = $factory->createLock($resource, 10.0, false);
        $this->assertTrue($reader->acquireRead());
        $this->assertFalse($factory->createLock($resource, 10.0, false)->acquire());
        $reader->release();

        $writer = $factory->createLock($resource, 10.0, false);
        $raw = Redis::raw();
        $before = (int) $raw->info('stats')['total_reads_processed'];
        $this->assertTrue($writer->acquire(true));
        $acquiredNs = hrtime(true);
        $after = (int) $raw->info('stats')['total_reads_processed'];

        $this->assertStringStartsWith('releasing ', $first->line());
        $releasing = $second->line();
        $this->assertStringStartsWith('releasing ', $releasing);
        $releasingNs = (int) substr($releasing, 10);
        $this->assertSame(0, $first->wait());
        $this->assertSame(0, $second->wait());

        // Not before the last reader let go; woken by its release: well within a second after.
        $this->assertGreaterThan($releasingNs, $acquiredNs);
        $this->assertLessThan(1.0, ($acquiredNs - $releasingNs) / 1e9);
        // The waiter's attempt, block, attempt after each wake-up and Lock's refresh, the two
        // readers' releases and this INFO: about 10; polling every 100 ms over 1.5 s: 30 or more.
        $this->assertLessThanOrEqual(14, $after - $before, 'requests served while waiting');
        $this->assertSame([], $raw->zRange('sftest:' . $resource . '{sftest:' . $resource . '}:readers', 0, -1));
        $writer->release();
        $this->assertFalse(Redis::client()->isLocked($resource));
    }

    public function testAReadKeySerializesAcrossProcesses(): void
    {
        $factory = new LockFactory(Redis::store());
        $resource = self::resource('serialize-read');
        $key = new Key($resource);
        $lock = $factory->createLockFromKey($key, 10.0, false);
        $this->assertTrue($lock->acquireRead());

        // Another process sees it held (restoreShared() by the key's token) and releases it.
        $w = new Worker('release', base64_encode(serialize($key)));
        $this->assertSame('before 1', $w->line());
        $this->assertSame('after 0', $w->line());
        $this->assertSame(0, $w->wait());
        $this->assertFalse($lock->isAcquired());
        $this->assertTrue($factory->createLock($resource, 10.0, false)->acquire(), 'free for a writer');
    }

    public function testPromotionIsAtOnceOrAConflictAndDemotionLetsReadersIn(): void
    {
        $factory = new LockFactory(Redis::store());
        $resource = self::resource('promote');
        $one = $factory->createLock($resource, 10.0, false);
        $two = $factory->createLock($resource, 10.0, false);
        $this->assertTrue($one->acquireRead());
        $this->assertTrue($two->acquireRead());

        // Another reader is in: no promotion, and a blocking one does not wait for it.
        $this->assertFalse($one->acquire());
        try {
            $one->acquire(true);
            $this->fail('a blocking promotion waited for the other reader');
        } catch (LockConflictedException $e) {
            $this->assertStringContainsString('promoted only by its sole holder', $e->getMessage());
        }
        $this->assertTrue($one->isAcquired(), 'the read lock is kept');

        $two->release();
        $this->assertTrue($one->acquire());
        $this->assertSame(1, Redis::raw()->exists('sftest:' . $resource), 'the write key is the mutex\'s key');
        $this->assertFalse($factory->createLock($resource, 10.0, false)->acquireRead());

        // Demoted: readers join (the key now marks shared holders only).
        $this->assertTrue($one->acquireRead());
        $this->assertSame("\0R", Redis::raw()->get('sftest:' . $resource));
        $three = $factory->createLock($resource, 10.0, false);
        $this->assertTrue($three->acquireRead());
        $one->release();
        $three->release();
        $this->assertTrue($factory->createLock($resource, 10.0, false)->acquire(), 'free for a writer');
    }

    public function testOnRedlockWriteLocksAreTheMutexAndReadLocksAreWriteLocks(): void
    {
        $factory = new LockFactory(new DistLockStore(new \DistLock(Redis::redlockUris(), ['prefix' => 'sftest:'])));
        $resource = self::resource('redlock');
        $a = $factory->createLock($resource, 10.0, false);
        $this->assertTrue($a->acquireRead(), 'a read lock, taken as a write lock');
        $this->assertFalse($factory->createLock($resource, 10.0, false)->acquireRead(), 'so a second reader waits');
        $this->assertTrue($a->isAcquired());
        $a->release();
        $this->assertFalse($a->isAcquired());

        $b = $factory->createLock($resource, 10.0, false);
        $this->assertTrue($b->acquire(true));
        $this->assertFalse($factory->createLock($resource, 10.0, false)->acquire());
        foreach (Redis::redlockUris() as $uri) {
            $this->assertSame('string', Redis::typeName(Redis::raw($uri), 'sftest:' . $resource), "the mutex's key on $uri");
        }
        $b->release();
        $this->assertTrue($factory->createLock($resource, 10.0, false)->acquireRead(true));
    }

    public function testEightProcessesFiftyReadModifyWritesLoseNoUpdate(): void
    {
        $resource = self::resource('rmw');
        $file = tempnam(sys_get_temp_dir(), 'distlock-rmw');
        file_put_contents($file, '0');
        try {
            $workers = [];
            for ($i = 0; $i < 8; $i++) {
                $workers[] = new Worker('rmw', $resource, $file, '50');
            }
            foreach ($workers as $w) {
                $this->assertSame('done', $w->line(120.0));
                $this->assertSame(0, $w->wait());
            }
            $this->assertSame('400', file_get_contents($file));
            $this->assertFalse(Redis::client()->isLocked($resource));
        } finally {
            @unlink($file);
        }
    }

    public function testAWaitThatWouldDeadlockIsAConflictAtOnceAndTheOtherWaiterIsGranted(): void
    {
        $this->deadlock('write');
    }

    public function testAReadWaitThatWouldDeadlockIsAConflictAtOnceAndTheOtherWaiterIsGranted(): void
    {
        $this->deadlock('read');
    }

    public function testWithoutSharedLocksAWaitThatWouldDeadlockIsAConflictAtOnce(): void
    {
        $this->deadlock('mutex');
    }

    /**
     * Two processes write-lock one name each, then acquire(true) (no time limit;
     * acquireRead(true) with $mode "read"; $mode "mutex": stores with sharedLocks
     * false) the other's: a cycle. The extension refuses
     * the wait that closes it when it is registered; the store must throw that one
     * LockConflictedException at once (not wait again), and the other process must be
     * granted once the refused one lets go.
     */
    private function deadlock(string $mode): void
    {
        $a = self::resource('deadlock-a');
        $b = self::resource('deadlock-b');
        $workers = [new Worker('deadlock', $a, $b, $mode), new Worker('deadlock', $b, $a, $mode)];
        try {
            foreach ($workers as $w) {
                $this->assertSame('held', $w->line());
            }
            $lines = [];
            foreach ($workers as $w) {
                $lines[] = $w->line(20.0); // without deadlock detection neither would ever answer
            }
            foreach ($workers as $w) {
                $this->assertSame(0, $w->wait());
            }
        } catch (\Throwable $e) {
            foreach ($workers as $w) {
                try {
                    $w->kill(9);
                    $w->wait(5.0);
                } catch (\Throwable) {
                    // ended and closed already
                }
            }
            throw $e;
        }
        $refused = array_values(array_filter($lines, static fn (string $l) => str_starts_with($l, 'deadlock ')));
        $granted = array_values(array_filter($lines, static fn (string $l) => str_starts_with($l, 'granted ')));
        $this->assertCount(1, $refused, 'exactly one wait refused: ' . implode(' | ', $lines));
        $this->assertCount(1, $granted, 'the other granted: ' . implode(' | ', $lines));

        [, $seconds, $previous, $json] = explode(' ', $refused[0], 4);
        $message = json_decode($json, true);
        $this->assertSame('DistLock\DeadlockException', $previous, 'the extension\'s exception as previous');
        $this->assertStringContainsString('Deadlock detected', $message);
        $this->assertStringContainsString($a, $message);
        $this->assertStringContainsString($b, $message);
        // Refused when the wait is registered, not after a wait: well under any wait.
        $this->assertLessThan(5.0, (float) $seconds, 'the refused wait took ' . $seconds . ' s');
        $this->assertLessThan(10.0, (float) substr($granted[0], 8), 'granted once the refused process let go');
        $this->assertFalse(Redis::client()->isLocked($a));
        $this->assertFalse(Redis::client()->isLocked($b));
    }

    /**
     * waitFor() retries a wait that ran out (no time limit), but not one the extension
     * refused as a deadlock: one attempt, then LockConflictedException with the cycle
     * in the message (a "%" in it kept as it is) and the DeadlockException as previous.
     */
    public function testADeadlockIsNotWaitedAgain(): void
    {
        $logger = new MemoryLogger();
        $store = new DistLockStore(Redis::client(), 300.0, true, [], $logger);
        $key = new Key(self::resource('deadlock-unit'));
        $cycle = 'Deadlock detected: this process (pid 200) waits for "a%sb%d", held by pid 100 on host-a, which waits for "x", held by this process';
        $calls = 0;
        $waitFor = new \ReflectionMethod(DistLockStore::class, 'waitFor');
        try {
            $waitFor->invoke($store, $key, static function () use (&$calls, $cycle): never {
                if (++$calls > 3) {
                    throw new \LogicException('waited again after a deadlock');
                }
                throw new \DistLock\DeadlockException($cycle);
            });
            $this->fail('no exception');
        } catch (LockConflictedException $e) {
            $this->assertSame(1, $calls, 'one attempt');
            $this->assertInstanceOf(\DistLock\DeadlockException::class, $e->getPrevious());
            $this->assertSame(\sprintf('The "%s" lock was not acquired: ', $key) . $cycle, $e->getMessage());
        }
        $info = $logger->at('info');
        $this->assertCount(1, $info);
        $this->assertSame('waiting would deadlock', $info[0]['context']['reason']);

        // A wait that ran out is waited again (no limit), as before.
        $calls = 0;
        try {
            $waitFor->invoke($store, $key, static function () use (&$calls): never {
                if (++$calls === 2) {
                    throw new \LogicException('second attempt');
                }
                throw new \DistLock\LockTimeoutException('timed out');
            });
            $this->fail('no exception');
        } catch (\LogicException $e) {
            $this->assertSame(2, $calls);
        }
    }

    public function testNetworkErrorsAreStorageErrorsNeverConflicts(): void
    {
        $secret = 'pw-' . bin2hex(random_bytes(8));
        $client = new \DistLock('redis://:' . $secret . '@127.0.0.1:' . Redis::deadPort(), ['connect_timeout' => 0.2, 'timeout' => 0.2]);
        $store = new DistLockStore($client);
        $held = new Key(self::resource('net'));
        $held->setState(DistLockStore::class, str_repeat('ab', 16)); // as if saved before the outage

        $calls = [
            'save' => fn () => $store->save(new Key(self::resource('net'))),
            'waitAndSave' => fn () => $store->waitAndSave(new Key(self::resource('net'))),
            'exists' => fn () => $store->exists($held),
            'putOffExpiration' => fn () => $store->putOffExpiration($held, 10.0),
            'delete' => fn () => $store->delete($held),
        ];
        foreach ($calls as $what => $call) {
            try {
                $call();
                $this->fail("$what: no exception without a server");
            } catch (LockStorageException $e) {
                $this->assertInstanceOf(ConnectionException::class, $e->getPrevious(), $what);
                $this->assertStringNotContainsString($secret, $e->getMessage(), $what);
                $this->assertStringNotContainsString(str_repeat('ab', 16), $e->getMessage(), $what);
            }
        }
        $this->assertTrue($held->hasState(DistLockStore::class), 'a failed delete keeps the token');

        // Through LockFactory: an error, never "not acquired".
        $lock = (new LockFactory($store))->createLock(self::resource('net'));
        try {
            $lock->acquire();
            $this->fail('acquire() without a server did not throw');
        } catch (LockAcquiringException $e) {
            $this->assertInstanceOf(LockStorageException::class, $e->getPrevious());
        }
    }

    public function testAnEmptyResourceSaysWhyInTheMessage(): void
    {
        $lock = (new \Symfony\Component\Lock\LockFactory(new DistLockStore(Redis::client())))->createLock('');
        try {
            $lock->acquire();
            $this->fail('an empty resource was accepted');
        } catch (\ValueError $e) {
            // not wrapped in "Failed to acquire the "" lock." with the reason in getPrevious()
            $this->assertStringContainsString('the resource name is empty', $e->getMessage());
            $this->assertStringContainsString('1 to 1024 bytes', $e->getMessage());
        }
    }
}
