<?php

namespace DistLock\Laravel\Tests\Feature13;

use DistLock\Laravel\Tests\Feature\AppTestCase;
use Illuminate\Support\Facades\Artisan;
use Illuminate\Support\Facades\Cache;

/**
 * What Laravel 13 added to the store's contracts, on the distlock store
 * ("distlock", values in "redis-values"): Store::touch() and Cache::touch(),
 * and cache:clear --locks (CanFlushLocks, which the store does not
 * implement). Run on Laravel 13 only (tests/laravel/root.sh); the rest of
 * what Laravel 12 and 13 added is tests/Feature12.
 */
class Laravel13ApisTest extends AppTestCase
{
    /** Store::touch() (Laravel 13): the value's TTL is reset in the value store. */
    public function testTouchResetsTheValuesTtl(): void
    {
        Cache::put('t', 'v', 5);
        $key = config('database.redis.options.prefix') . Cache::store('redis-values')->getStore()->getPrefix() . 't';
        $this->assertLessThanOrEqual(5000, $this->raw()->pttl($key));
        $this->assertGreaterThan(0, $this->raw()->pttl($key), 'the value is there, with a TTL');
        $this->assertTrue(Cache::touch('t', 300));
        $this->assertGreaterThan(200000, $this->raw()->pttl($key), 'the TTL went to 300 s');
        $this->assertSame('v', Cache::get('t'));
        $this->assertFalse(Cache::touch('absent', 300), 'no value, nothing touched');
        $this->assertTrue(Cache::getStore()->touch('t', 100), 'the store method itself');
        $this->assertLessThanOrEqual(100000, $this->raw()->pttl($key));
        $this->assertGreaterThan(50000, $this->raw()->pttl($key));
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
}
