<?php

namespace DistLock\Laravel\Tests\Feature12;

use DistLock\Laravel\ReadWriteCacheLock;
use DistLock\Laravel\Tests\Feature\AppTestCase;
use Illuminate\Cache\Limiters\LimiterTimeoutException;
use Illuminate\Contracts\Cache\LockTimeoutException;
use Illuminate\Queue\Middleware\WithoutOverlapping;
use Illuminate\Support\Defer\DeferredCallbackCollection;
use Illuminate\Session\Middleware\StartSession;
use Illuminate\Support\Facades\Cache;
use Illuminate\Support\Facades\Route;

/**
 * What Laravel 12 added that takes a lock through the store (refresh(),
 * Cache::withoutOverlapping(), Cache::funnel()), Cache::flexible(), the job
 * middleware and session blocking, on the distlock store
 * ("distlock", values in "redis-values"): each as Laravel's Redis store
 * answers it. Run on Laravel 12 (tests/laravel/run.sh) and 13
 * (tests/laravel/root.sh): 12.5x and later have every method it calls.
 */
class Laravel12ApisTest extends AppTestCase
{
    /** Lock::refresh() (#58349): the lease is reset only by its owner; isLocked() (13.7). */
    public function testRefreshAndIsLocked(): void
    {
        $a = Cache::lock('r', 10);
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

    /**
     * Session blocking (a route's ->block()): StartSession takes the
     * session's lock on the store session.block_store names, and a request
     * whose session another request holds waits, then fails.
     */
    public function testSessionBlockingWaitsOnTheStoresLock(): void
    {
        config(['session.block_store' => 'distlock']);
        Route::get('/blocked', fn () => 'ran')->middleware(StartSession::class)->block(10, 1);
        $id = str_repeat('a1', 20);   // a valid session id (40 letters and digits)
        $held = Cache::lock('session:' . $id, 10);
        $this->assertTrue($held->get(), 'another request of the session holds it');
        $this->withoutExceptionHandling();
        $t = microtime(true);
        try {
            $this->withUnencryptedCookie('dltest_session', $id)->get('/blocked');
            $this->fail('the request ran while another request of its session held the lock');
        } catch (LockTimeoutException) {
        }
        $this->assertGreaterThan(0.5, microtime(true) - $t, 'it waited (->block(10, 1): 1 s)');
        $this->assertTrue($held->release());
        $this->withUnencryptedCookie('dltest_session', $id)->get('/blocked')->assertOk()->assertSeeText('ran');
        $this->assertFalse(Cache::lock('session:' . $id)->isLocked(), 'released after the request');
    }
}
