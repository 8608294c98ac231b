<?php

namespace DistLock\Laravel\Tests\Feature13;

use DistLock\Laravel\CacheLock;
use DistLock\Laravel\ReadWriteCacheLock;
use DistLock\Laravel\Tests\Feature\AppTestCase;
use Illuminate\Cache\Limiters\LimiterTimeoutException;
use Illuminate\Contracts\Cache\LockTimeoutException;
use Illuminate\Queue\Middleware\WithoutOverlapping;
use Illuminate\Support\Defer\DeferredCallbackCollection;
use Illuminate\Support\Facades\Artisan;
use Illuminate\Support\Facades\Cache;

/**
 * What Laravel 12.5x and 13 added that takes a lock or a value through the
 * store, and the job middleware and session blocking's calls, on the distlock
 * store ("distlock", values in "redis-values"): each as Laravel's Redis store
 * answers it. Run on Laravel 13 only
 * (tests/laravel/root.sh): the methods are not there before.
 */
class Laravel13ApisTest extends AppTestCase
{
    /** Store::touch() (Laravel 13): the value's TTL is reset in the value store. */
    public function testTouchResetsTheValuesTtl(): void
    {
        Cache::put('t', 'v', 5);
        $key = config('database.redis.options.prefix') . Cache::store('redis-values')->getStore()->getPrefix() . 't';
        $this->assertLessThanOrEqual(5000, $this->raw()->pttl($key));
        $this->assertTrue(Cache::touch('t', 300));
        $this->assertGreaterThan(200000, $this->raw()->pttl($key), 'the TTL went to 300 s');
        $this->assertSame('v', Cache::get('t'));
        $this->assertFalse(Cache::touch('absent', 300), 'no value, nothing touched');
        $this->assertTrue(Cache::getStore()->touch('t', 100), 'the store method itself');
        $this->assertLessThanOrEqual(100000, $this->raw()->pttl($key));
    }

    /** Lock::refresh() (#58349): the lease is reset only by its owner; isLocked() (13.7). */
    public function testRefreshAndIsLocked(): void
    {
        $a = Cache::lock('r', 2);
        $this->assertTrue($a->get());
        $this->assertTrue($a->refresh(60));
        $this->assertGreaterThan(30000, $this->raw()->pttl($this->lockKey('r')));
        $this->assertFalse(Cache::lock('r', 60)->refresh(), 'another owner cannot refresh it');
        $this->assertTrue(Cache::lock('r')->isLocked());
        $this->assertTrue($a->release());
        $this->assertFalse(Cache::lock('r')->isLocked());
        $this->assertFalse($a->refresh(), 'a released lock is not refreshed');
        // A read/write lock's isLocked() means held by anyone, as Laravel's does.
        $reader = Cache::getStore()->readLock('rw', 10);
        $this->assertInstanceOf(ReadWriteCacheLock::class, $reader);
        $this->assertTrue($reader->get());
        $this->assertTrue(Cache::getStore()->writeLock('rw', 10)->isLocked(), 'held by a reader, seen by another handle');
        $this->assertTrue($reader->release());
        $this->assertFalse(Cache::getStore()->writeLock('rw', 10)->isLocked());
    }

    /** Cache::withoutOverlapping() (#58303): lock($key, $lockFor)->block($waitFor, $callback). */
    public function testWithoutOverlapping(): void
    {
        $this->assertSame('ran', Cache::withoutOverlapping('wo', fn () => 'ran', 10, 1));
        $this->assertFalse(Cache::lock('wo')->isLocked(), 'released after the callback');
        $other = Cache::lock('wo', 10);
        $this->assertTrue($other->get());
        $ran = false;
        try {
            Cache::withoutOverlapping('wo', function () use (&$ran) { $ran = true; }, 10, 1);
            $this->fail('no LockTimeoutException while another owner held the lock');
        } catch (LockTimeoutException) {
        }
        $this->assertFalse($ran);
        $this->assertTrue($other->release(), 'the holder kept its lock');
    }

    /** Cache::funnel() (#58439): at most limit() holders, each through store->lock(). */
    public function testFunnel(): void
    {
        $held = [];
        foreach ([1, 2] as $i) {
            $held[$i] = Cache::lock("fun$i", 30);
            $this->assertTrue($held[$i]->get());
        }
        $failed = null;
        Cache::funnel('fun')->limit(2)->releaseAfter(30)->block(0)
            ->then(fn () => $this->fail('ran with both slots held'), function ($e) use (&$failed) { $failed = $e; });
        $this->assertInstanceOf(LimiterTimeoutException::class, $failed);
        $this->assertTrue($held[2]->release());
        $this->assertSame('slot', Cache::funnel('fun')->limit(2)->releaseAfter(30)->block(1)->then(fn () => 'slot'));
        $this->assertFalse(Cache::lock('fun2')->isLocked(), 'the slot is given back');
        $this->assertTrue($held[1]->release());
    }

    /** Cache::flexible(): the stale value's deferred refresh takes its lock through the store. */
    public function testFlexibleRefreshesUnderTheStoresLock(): void
    {
        $calls = 0;
        $compute = function () use (&$calls) { return 'v' . ++$calls; };
        $this->assertSame('v1', Cache::flexible('fx', [1, 100], $compute));
        $this->travel(2)->seconds();          // past the fresh period: stale
        $lockName = 'illuminate:cache:flexible:lock:fx';
        $other = Cache::lock($lockName, 30);
        $this->assertTrue($other->get(), 'the refresh lock is a distlock lock of that name');
        $this->assertSame('v1', Cache::flexible('fx', [1, 100], $compute), 'stale value served');
        app(DeferredCallbackCollection::class)->invoke();
        $this->assertSame(1, $calls, 'no refresh while another process holds the refresh lock');
        $this->assertTrue($other->release());
        $this->assertSame('v1', Cache::flexible('fx', [1, 100], $compute));
        app(DeferredCallbackCollection::class)->invoke();
        $this->assertSame(2, $calls, 'refreshed once the lock was free');
        $this->assertFalse(Cache::lock($lockName)->isLocked(), 'and the lock released');
    }

    /** The WithoutOverlapping job middleware: one run of a key at a time, through the store's lock. */
    public function testWithoutOverlappingJobMiddleware(): void
    {
        $job = new class {
            public ?int $releasedAfter = null;

            public function release($delay = 0): void
            {
                $this->releasedAfter = $delay;
            }
        };
        $middleware = (new WithoutOverlapping('order-1'))->shared();
        $inside = null;
        $middleware->handle($job, function () use (&$inside) {
            $inside = Cache::lock('laravel-queue-overlap:order-1')->isLocked();
        });
        $this->assertTrue($inside, 'the job ran under a distlock lock of the middleware key');
        $this->assertFalse(Cache::lock('laravel-queue-overlap:order-1')->isLocked(), 'released after the job');
        $other = Cache::lock('laravel-queue-overlap:order-1', 30);
        $this->assertTrue($other->get());
        $ran = false;
        (new WithoutOverlapping('order-1', 7))->shared()->handle($job, function () use (&$ran) { $ran = true; });
        $this->assertFalse($ran, 'not run while another worker holds the key');
        $this->assertSame(7, $job->releasedAfter, 'released back to the queue for 7 s');
        $this->assertTrue($other->release());
    }

    /** cache:clear --locks (Laravel 13, CanFlushLocks): not supported, says so, deletes nothing. */
    public function testClearLocksIsRefusedAndLeavesTheLocks(): void
    {
        $held = Cache::lock('kept', 30);
        $this->assertTrue($held->get());
        Cache::put('value', 'v', 30);
        $this->assertSame(1, Artisan::call('cache:clear', ['store' => 'distlock', '--locks' => true]));
        $this->assertStringContainsString('does not support clearing locks', Artisan::output());
        $this->assertTrue(Cache::lock('kept')->isLocked(), 'the lock is still held');
        $this->assertSame('v', Cache::get('value'), 'and the values are still there');
        $this->assertTrue($held->release());
    }

    /** What StartSession's blocking calls: lock()->betweenBlockedAttemptsSleepFor(50)->block(). */
    public function testSessionBlockingsCalls(): void
    {
        $held = Cache::lock('session:abc', 10);
        $this->assertTrue($held->get());
        $lock = Cache::lock('session:abc', 10)->betweenBlockedAttemptsSleepFor(50);
        $this->assertInstanceOf(CacheLock::class, $lock);
        $t = microtime(true);
        try {
            $lock->block(0.3);
            $this->fail('no LockTimeoutException');
        } catch (LockTimeoutException) {
        }
        $this->assertGreaterThanOrEqual(0.25, microtime(true) - $t, 'waited');
        $this->assertTrue($held->release());
        $this->assertTrue($lock->block(1));
        $this->assertTrue($lock->release());
    }
}
