<?php

namespace DistLock\Laravel\Tests\Feature;

use DistLock\Laravel\CacheLock;
use DistLock\Laravel\DistLockStore;
use DistLock\Laravel\InvalidConfigurationException;
use Illuminate\Contracts\Cache\LockTimeoutException;
use Illuminate\Support\Facades\Artisan;
use Illuminate\Support\Facades\Cache;

/** Every CacheLock method, the store, the provider and the commands, in one process. */
class CacheLockTest extends AppTestCase
{
    public function testTheDefaultStoreIsDistlockAndRegisteredByDiscovery(): void
    {
        $this->assertInstanceOf(DistLockStore::class, Cache::getStore());
        $this->assertInstanceOf(CacheLock::class, Cache::lock('x', 1));
        $this->assertArrayHasKey('DistLock\\Laravel\\DistLockServiceProvider', $this->app->getLoadedProviders());
        $this->assertSame(app(\DistLock::class), app(\DistLock::class));
        Cache::put('v', 'value', 10);
        $this->assertSame('value', Cache::store('redis-values')->get('v'), 'values go to the value store');
        $this->assertTrue(Cache::add('w', 1, 10));
        $this->assertFalse(Cache::add('w', 2, 10));
    }

    /**
     * touch() (Laravel 13's Store contract) goes to the value store; where that
     * store has none (Laravel 8 to 12) it throws, naming the store, and
     * changes nothing.
     */
    public function testTouchGoesToTheValueStoreOrThrows(): void
    {
        Cache::put('t', 'v', 5);
        $key = config('database.redis.options.prefix') . Cache::store('redis-values')->getStore()->getPrefix() . 't';
        if (method_exists(Cache::store('redis-values')->getStore(), 'touch')) {
            $this->assertTrue(Cache::getStore()->touch('t', 300));
            $this->assertGreaterThan(200000, $this->raw()->pttl($key));
            return;
        }
        try {
            Cache::getStore()->touch('t', 300);
            $this->fail('touch() on a value store without one did not throw');
        } catch (\BadMethodCallException $e) {
            $this->assertStringContainsString('RedisStore) has no touch()', $e->getMessage());
        }
        $ttl = $this->raw()->pttl($key);
        $this->assertTrue($ttl > 0 && $ttl <= 5000, "the TTL is unchanged ($ttl ms)");
    }

    public function testGetReleaseAndOwners(): void
    {
        $a = Cache::lock('a', 10);
        $this->assertMatchesRegularExpression('/^[0-9a-f]{32}$/', $a->owner());
        $this->assertNotSame($a->owner(), Cache::lock('a', 10)->owner());
        $this->assertTrue($a->get());
        $this->assertFalse(Cache::lock('a', 10)->get());
        $this->assertFalse(Cache::lock('a', 10, $a->owner())->get(), 'the same owner cannot take it twice (Laravel semantics)');
        $this->assertFalse(Cache::lock('a', 10)->release(), 'another owner cannot release it');
        $this->assertTrue($a->release());
        $this->assertFalse($a->release());
        $this->assertSame('cb', Cache::lock('a', 10)->get(fn () => 'cb'));
        $this->assertFalse(Cache::lock('a')->isLocked(), 'get($callback) releases');
    }

    public function testOwnerQueries(): void
    {
        $lock = Cache::lock('q', 10, 'me');
        $this->assertNull($lock->getCurrentOwner());
        $this->assertFalse($lock->isLocked());
        $this->assertFalse($lock->isOwnedByCurrentProcess());
        $this->assertTrue($lock->acquire());
        $this->assertSame('me', $lock->getCurrentOwner());
        $this->assertTrue($lock->isLocked());
        $this->assertTrue($lock->isOwnedByCurrentProcess());
        $this->assertTrue($lock->isOwnedBy('me'));
        $this->assertFalse($lock->isOwnedBy('you'));
        $this->assertFalse($lock->isOwnedBy(null));
        $this->assertTrue(Cache::restoreLock('q', 'me')->isOwnedByCurrentProcess());
        $this->assertFalse(Cache::restoreLock('q', 'you')->isOwnedByCurrentProcess());
        Cache::lock('q')->forceRelease();
        $this->assertFalse($lock->isLocked());
    }

    public function testSameKeyAndValueAsLaravelsRedisLock(): void
    {
        $ours = Cache::lock('shared', 10, 'owner-1');
        $this->assertTrue($ours->get());
        $this->assertSame('owner-1', $this->raw()->get($this->lockKey('shared')));
        $theirs = Cache::store('redis-values')->lock('shared', 10);
        $this->assertNotInstanceOf(CacheLock::class, $theirs);
        $this->assertFalse($theirs->get(), "Laravel's own lock sees ours");
        $this->assertTrue(Cache::store('redis-values')->restoreLock('shared', 'owner-1')->release());
        $this->assertTrue($theirs->get());
        $this->assertFalse(Cache::lock('shared', 10)->get(), "ours sees Laravel's");
        $this->assertTrue(Cache::restoreLock('shared', $theirs->owner())->release());
    }

    public function testBlockWaitsFractionalSecondsAndThrowsLaravelsException(): void
    {
        $this->assertTrue(Cache::lock('b', 10)->get());
        $t = microtime(true);
        try {
            Cache::lock('b', 10)->block(0.4);
            $this->fail('block() returned while the lock was held');
        } catch (LockTimeoutException $e) {
            $elapsed = microtime(true) - $t;
            $this->assertGreaterThanOrEqual(0.38, $elapsed);
            $this->assertLessThan(0.9, $elapsed, 'the wait is 0.4 s, not rounded up to a second');
            $this->assertInstanceOf(\DistLock\LockTimeoutException::class, $e->getPrevious());
        }
        Cache::lock('b')->forceRelease();
        $this->assertSame('done', Cache::lock('b', 10)->block(1, fn () => 'done'));
        $this->assertFalse(Cache::lock('b')->isLocked());
        $this->assertTrue(Cache::lock('b', 10)->block(0));
    }

    public function testBlockIsWokenByAReleaseInAnotherProcess(): void
    {
        $this->assertTrue(Cache::lock('w', 30, 'holder')->get());
        $releaser = proc_open(['bash', '-c', 'sleep 0.5; exec "$@"', 'x', PHP_BINARY, '-d', 'extension=' . getenv('DISTLOCK_SO'),
            getenv('DISTLOCK_TEST_APP') . '/artisan', 'dltest:release', 'w', 'holder'], [1 => ['pipe', 'w']], $pipes);
        $t = microtime(true);
        $this->assertTrue(Cache::lock('w', 10)->block(10));
        $elapsed = microtime(true) - $t;
        $this->assertSame('released', trim(stream_get_contents($pipes[1])));
        proc_close($releaser);
        $this->assertLessThan(5.0, $elapsed, 'woken by the release, long before the 30 s lease ends');
    }

    public function testRefresh(): void
    {
        $r = $this->raw();
        $lock = Cache::lock('r', 10);
        $this->assertFalse($lock->refresh(), 'not held');
        $this->assertTrue($lock->get());
        $this->assertTrue($lock->refresh(3));
        $this->assertEqualsWithDelta(3000, $r->pttl($this->lockKey('r')), 100);
        $this->assertTrue($lock->refresh(1.5));
        $this->assertEqualsWithDelta(1500, $r->pttl($this->lockKey('r')), 100);
        $this->assertTrue($lock->refresh());
        $this->assertEqualsWithDelta(10000, $r->pttl($this->lockKey('r')), 100, 'null = the lock time');
        $this->assertTrue($lock->refresh(0));
        $this->assertEqualsWithDelta(86400000, $r->pttl($this->lockKey('r')), 1000, '0 = no expiry = forever_ttl');
        $this->assertFalse(Cache::lock('r', 10)->refresh(5), 'another owner cannot refresh');
        $lock->release();
        $this->assertFalse($lock->refresh(5));
    }

    public function testForeverTtl(): void
    {
        $this->assertTrue(Cache::lock('f')->get());
        $this->assertEqualsWithDelta(86400000, $this->raw()->pttl($this->lockKey('f')), 1000);
        config(['cache.stores.short' => ['driver' => 'distlock', 'store' => 'redis-values', 'forever_ttl' => 7]]);
        $this->assertTrue(Cache::store('short')->lock('g', 0)->get());
        $this->assertEqualsWithDelta(7000, $this->raw()->pttl($this->lockKey('g')), 100);
    }

    public function testForceRelease(): void
    {
        $this->assertTrue(Cache::lock('fr', 10)->get());
        Cache::lock('fr')->forceRelease();
        $this->assertSame(0, $this->raw()->exists($this->lockKey('fr')));
    }

    public function testANetworkFailureThrowsAndNeverLooksLikeNotAcquired(): void
    {
        $s = stream_socket_server('tcp://127.0.0.1:0');
        $port = (int) substr(strrchr(stream_socket_get_name($s, false), ':'), 1);
        fclose($s); // nothing listens there now
        config(['database.redis.dead' => ['host' => '127.0.0.1', 'port' => $port, 'database' => 0]]);
        config(['cache.stores.dead' => ['driver' => 'distlock', 'store' => 'redis-values', 'connection' => 'dead']]);
        foreach (['get' => fn ($l) => $l->get(), 'block' => fn ($l) => $l->block(1), 'release' => fn ($l) => $l->release(),
                  'owner' => fn ($l) => $l->getCurrentOwner()] as $what => $call) {
            try {
                $call(Cache::store('dead')->lock('n', 10));
                $this->fail("$what did not throw");
            } catch (\DistLock\ConnectionException $e) {
                $this->addToAssertionCount(1);
            }
        }
    }

    public function testABadSettingFailsWithItsNameAndNoSecret(): void
    {
        config(['distlock.url' => 'redis://user:s3cretpw@127.0.0.1:notaport']);
        $this->app->forgetInstance(\DistLock::class);
        try {
            app(\DistLock::class);
            $this->fail('a bad URI was accepted');
        } catch (InvalidConfigurationException $e) {
            $this->assertStringContainsString('DISTLOCK_URL', $e->getMessage());
            $this->assertStringNotContainsString('s3cretpw', $e->getMessage());
        }
        config(['distlock.url' => null, 'distlock.options.ttl' => -1]);
        $this->app->forgetInstance(\DistLock::class);
        try {
            app(\DistLock::class);
            $this->fail('a bad option was accepted');
        } catch (InvalidConfigurationException $e) {
            $this->assertStringContainsString('distlock.options', $e->getMessage());
        }
    }

    public function testTheClientIsBuiltFromTheDefaultRedisConnection(): void
    {
        $client = app(\DistLock::class);
        $lease = $client->tryLock('from-config', 5.0);
        $this->assertNotNull($lease);
        $this->assertSame($lease->token(), $this->raw()->get('lock:from-config'), 'same server and database as database.redis.default');
        $lease->release();
    }

    public function testStatusAndReleaseCommands(): void
    {
        $lock = Cache::lock('cmd', 20);
        $this->assertTrue($lock->get());
        $this->assertSame(0, Artisan::call('distlock:status', ['name' => 'cmd', '--store' => 'distlock']));
        $out = Artisan::output();
        $this->assertMatchesRegularExpression('/cmd: held, (19|20)\.\d+ s left, 0 waiter/', $out);
        $this->assertStringNotContainsString($lock->owner(), $out);
        $this->assertSame(1, Artisan::call('distlock:release', ['name' => 'cmd', '--store' => 'distlock', '--no-interaction' => true]));
        $this->assertTrue($lock->isLocked(), 'not released without confirmation');
        $this->assertSame(0, Artisan::call('distlock:release', ['name' => 'cmd', '--store' => 'distlock', '--force' => true]));
        $this->assertStringContainsString('cmd: released', Artisan::output());
        $this->assertFalse($lock->isLocked());
        Artisan::call('distlock:status', ['name' => 'cmd', '--store' => 'distlock']);
        $this->assertStringContainsString('cmd: free', Artisan::output());
    }

    public function testStatusCommandSeesEveryKindOfHolder(): void
    {
        $store = Cache::store('distlock');
        $status = function (string $name): string {
            $this->assertSame(0, Artisan::call('distlock:status', ['name' => $name, '--store' => 'distlock']));
            return trim(Artisan::output());
        };

        // a read lock: two shared holders, the longest lease; no owner shown (there is none)
        $r1 = $store->readLock('catalogue', 10, 'reader-one');
        $r2 = $store->readLock('catalogue', 20, 'reader-two');
        $this->assertTrue($r1->get());
        $this->assertTrue($r2->get());
        $out = $status('catalogue');
        $this->assertMatchesRegularExpression('/^catalogue: held, (19|20)\.\d+ s left, 0 waiter\(s\); shared, 2 holders$/', $out);
        $this->assertStringNotContainsString('reader-', $out);
        $this->assertTrue($r1->release());
        $this->assertMatchesRegularExpression('/^catalogue: held, (19|20)\.\d+ s left, 0 waiter\(s\); shared, 1 holder$/', $status('catalogue'));
        $this->assertTrue($r2->release());
        $this->assertSame('catalogue: free, 0 waiter(s)', $status('catalogue'));

        // a write lock: the exclusive holder, its owner as 4 characters
        $w = $store->writeLock('catalogue', 10, 'writer-owner');
        $this->assertTrue($w->get());
        $out = $status('catalogue');
        $this->assertMatchesRegularExpression('/^catalogue: held, (9|10)\.\d+ s left, 0 waiter\(s\); exclusive, 1 holder, owner writ…$/', $out);
        $this->assertStringNotContainsString('writer-owner', $out);
        $this->assertTrue($w->release());

        // a semaphore on the store's client (as Concurrency::funnel() takes its slots): holders and permits
        $client = $store->getStore()->lockClient();
        $a = $client->acquirePermits('funnel', 5, 2, 10);
        $b = $client->acquirePermits('funnel', 5, 1, 20);
        $out = $status('funnel');
        $this->assertMatchesRegularExpression('/^funnel: held, (19|20)\.\d+ s left, 0 waiter\(s\); semaphore, 2 holders, 3 permits in use$/', $out);
        $this->assertStringNotContainsString('owner', $out, 'a semaphore has no single owner');
        $b->release();
        $this->assertMatchesRegularExpression('/^funnel: held, (9|10)\.\d+ s left, 0 waiter\(s\); semaphore, 1 holder, 2 permits in use$/', $status('funnel'));
        $a->release();
        $this->assertSame('funnel: free, 0 waiter(s)', $status('funnel'));
    }

    public function testDistlockUrlConfiguresTheCacheStoreToo(): void
    {
        $s = stream_socket_server('tcp://127.0.0.1:0');
        $port = (int) substr(strrchr(stream_socket_get_name($s, false), ':'), 1);
        fclose($s); // nothing listens there
        config(['distlock.url' => "redis://127.0.0.1:$port"]);
        config(['cache.stores.viaurl' => ['driver' => 'distlock', 'store' => 'redis-values', 'connection' => 'default']]);
        try {
            Cache::store('viaurl')->lock('u', 10)->get();
            $this->fail('the store ignored DISTLOCK_URL and locked on the Redis connection');
        } catch (\DistLock\ConnectionException $e) {
            $this->assertStringContainsString("127.0.0.1:$port", $e->getMessage());
        }
    }

    public function testCommandsDefaultToTheDistlockCacheStore(): void
    {
        $lock = Cache::lock('deflt', 20);   // the default store, a distlock one
        $this->assertTrue($lock->get());
        $this->assertSame(0, Artisan::call('distlock:status', ['name' => 'deflt']));
        $this->assertMatchesRegularExpression('/deflt: held, (19|20)\.\d+ s left/', Artisan::output());
        $lock->release();
    }

    public function testABadStoreIsAConsoleErrorNotAStackTrace(): void
    {
        $this->assertSame(1, Artisan::call('distlock:status', ['name' => 'x', '--store' => 'array']));
        $this->assertStringContainsString('Cache store [array] does not use the distlock driver.', Artisan::output());
        // "file" is a store of Laravel 11+'s default config, not of 8's test app
        $this->assertSame(1, Artisan::call('distlock:status', ['name' => 'x', '--store' => 'file']));
        $out = Artisan::output();
        $this->assertMatchesRegularExpression('/Cache store \[file\] (is not defined in config\/cache\.php|does not use the distlock driver)\./', $out);
        $this->assertStringNotContainsString('#0 ', $out, 'no stack trace');
        $this->assertSame(1, Artisan::call('distlock:release', ['name' => 'x', '--store' => 'nosuch', '--force' => true]));
        $this->assertStringContainsString('Cache store [nosuch] is not defined in config/cache.php.', Artisan::output());
    }
}
