<?php

namespace DistLock\Laravel\Tests\Feature;

use DistLock\Laravel\MultiCacheLock;
use DistLock\Laravel\ReadWriteCacheLock;
use Illuminate\Contracts\Cache\LockTimeoutException;
use Illuminate\Support\Facades\Cache;

/** distlock's own cache-lock shapes for shared locks and multi-locks: readLock(), writeLock(), lockMany(). */
class ReadWriteAndMultiLockTest extends AppTestCase
{
    public function testReadersShareAndTheWriterIsWokenByTheLastRelease(): void
    {
        $store = Cache::store('distlock');
        $this->assertInstanceOf(ReadWriteCacheLock::class, Cache::readLock('dl-catalog'), 'through the facade (distlock is the default store)');
        $holder = $this->startArtisan(['dltest:read-hold', 'dl-catalog', '1.0']);
        $this->assertSame('held', trim((string) fgets($holder[1][1])));

        $reader = $store->readLock('dl-catalog', 10);
        $this->assertTrue($reader->get(), 'a second reader beside the other process\'s');
        $this->assertFalse($store->writeLock('dl-catalog', 10)->get(), 'no writer while readers hold');
        $this->assertTrue($reader->release());

        $acquiredNs = $store->writeLock('dl-catalog', 10)->block(5, fn () => hrtime(true));
        [$rc, $out] = $this->finish($holder);
        $this->assertSame(0, $rc);
        $releasingNs = (int) substr($out, strlen('releasing '));
        $this->assertGreaterThan($releasingNs, $acquiredNs, 'not before the last reader let go');
        $this->assertLessThan(1.0, ($acquiredNs - $releasingNs) / 1e9, 'woken by that release');
    }

    public function testOwnersRestoreAndWritersExcludeReaders(): void
    {
        $store = Cache::store('distlock');
        $w = $store->writeLock('dl-rw', 10, 'writer-1');
        $this->assertTrue($w->get());
        $this->assertTrue($store->writeLock('dl-rw', 0, 'writer-1')->isOwnedByCurrentProcess(), 'restored by owner');
        $this->assertFalse($store->readLock('dl-rw', 10)->get());
        $this->assertFalse(Cache::lock('dl-rw', 10)->get(), 'the write side holds the mutex\'s key');
        $this->assertTrue($store->writeLock('dl-rw', 0, 'writer-1')->release(), 'released by owner from another object');
        $this->assertFalse($w->release(), 'released once');

        $r = $store->readLock('dl-rw', 10, 'reader-1');
        $this->assertTrue($r->get());
        $this->assertSame('reader-1', $store->readLock('dl-rw', 0, 'reader-1')->getCurrentOwner());
        $this->assertTrue($r->refresh(30));
        try {
            $store->writeLock('dl-rw', 10)->block(0.2);
            $this->fail('a writer got in beside a reader');
        } catch (LockTimeoutException $e) {
            $this->assertStringContainsString('Write lock [dl-rw]', $e->getMessage());
        }
        $this->assertTrue($r->release());
        $this->assertNull($r->getCurrentOwner());

        $this->assertTrue($store->writeLock('dl-rw', 10)->get());
        $store->writeLock('dl-rw')->forceRelease();
        $this->assertTrue($store->writeLock('dl-rw', 10)->get(), 'force-released');
        $store->writeLock('dl-rw')->forceRelease();
    }

    /**
     * One name, one kind: Cache::lock() of a name held by readers or a writer is
     * refused as a held lock (get() false, release()/refresh() false), and
     * block() waits it out (polling: the extension does not wait on another kind).
     */
    public function testCacheLockOfANameHeldAsAnotherKindIsHeld(): void
    {
        $store = Cache::store('distlock');
        $r = $store->readLock('dl-kinds', 0.6, 'reader-1');
        $this->assertTrue($r->get());
        $lock = Cache::lock('dl-kinds', 10, 'mutex-1');
        $this->assertFalse($lock->get(), 'readers hold the name');
        $this->assertFalse($lock->release());
        $this->assertFalse($lock->refresh());
        $this->assertFalse($store->lockMany(['dl-kinds', 'dl-kinds-2'], 10)->get());
        $t = microtime(true);
        $this->assertTrue($lock->block(5), 'granted once the read lease ended');
        $waited = microtime(true) - $t;
        $this->assertGreaterThan(0.3, $waited);
        $this->assertLessThan(4.0, $waited);
        $this->assertFalse($store->readLock('dl-kinds', 10)->get(), 'the mutex holds the name');
        $this->assertFalse($store->writeLock('dl-kinds', 10)->get());
        try {
            $store->writeLock('dl-kinds', 10)->block(0.3);
            $this->fail('a writer got in beside the mutex');
        } catch (LockTimeoutException $e) {
            $this->assertStringContainsString('Write lock [dl-kinds]', $e->getMessage());
        }
        $this->assertTrue($lock->release());
        $this->assertTrue($store->writeLock('dl-kinds', 10, 'writer-1')->get());
        $this->assertFalse(Cache::lock('dl-kinds', 10)->get(), 'the writer holds the name');
        $this->assertTrue($store->writeLock('dl-kinds', 0, 'writer-1')->release());
    }

    public function testLockManyTakesAllOrNone(): void
    {
        $store = Cache::store('distlock');
        $ab = $store->lockMany(['dl-acct:1', 'dl-acct:2'], 10);
        $this->assertInstanceOf(MultiCacheLock::class, $ab);
        $this->assertTrue($ab->get());
        $this->assertFalse(Cache::lock('dl-acct:2', 10)->get(), 'each name is held as Cache::lock() sees it');
        $this->assertFalse($store->lockMany(['dl-acct:2', 'dl-acct:3'], 10)->get(), 'all or none');
        $this->assertTrue(Cache::lock('dl-acct:3', 10)->get(), 'dl-acct:3 was not taken by the failed attempt');
        Cache::lock('dl-acct:3')->forceRelease();
        try {
            $store->lockMany(['dl-acct:2', 'dl-acct:1'], 10)->block(0.2);
            $this->fail('taken twice');
        } catch (LockTimeoutException $e) {
            $this->assertStringContainsString('dl-acct:2, dl-acct:1', $e->getMessage());
        }
        $this->assertTrue($ab->release());
        $this->assertSame('ran', $store->lockMany(['dl-acct:2', 'dl-acct:1'], 10)->block(1, fn () => 'ran'));
        $this->assertFalse(Cache::lock('dl-acct:1')->isLocked(), 'released after the callback');
    }
}
