<?php

namespace DistLock\Laravel\Tests\Feature;

use DistLock\Laravel\CacheLock;
use Illuminate\Cache\Lock;
use Illuminate\Contracts\Cache\LockTimeoutException;
use Illuminate\Support\Facades\Cache;

/**
 * The distlock store's locks answer as Laravel's own Redis lock does: one
 * script of calls over every public method of Illuminate\Cache\Lock,
 * LockProvider and RedisLock, run once on Laravel's RedisStore ("redis-values")
 * and once on the distlock store ("distlock"), and the two lists of answers
 * must be equal. Methods the installed Laravel lacks or keeps protected
 * (isOwnedBy() before 11, refresh() before 12, isOwnedByCurrentProcess()
 * before 10) are left out of both lists, so the test compares what
 * that version's own lock does (Laravel 12: isOwnedBy(null) is true on a free
 * lock, refresh(0) keeps the lock).
 */
class LaravelLockParityTest extends AppTestCase
{
    public function testEveryPublicMethodAnswersAsLaravelsRedisLock(): void
    {
        $laravel = $this->script('redis-values');
        $this->assertNotInstanceOf(CacheLock::class, Cache::store('redis-values')->lock('p'));
        $ours = $this->script('distlock');
        $this->assertInstanceOf(CacheLock::class, Cache::store('distlock')->lock('p'));
        $this->assertSame($laravel, $ours);
        if (method_exists(Lock::class, 'isOwnedBy')) {
            // What issue 27 found: false on the distlock store before the fix.
            $this->assertTrue($ours['free: isOwnedBy(null)']);
        }
    }

    public function testIsOwnedByComparesWithTheCurrentOwnerStrictly(): void
    {
        $lock = Cache::lock('strict', 10, 'me');
        $this->assertTrue($lock->isOwnedBy(null), 'free: null is the current owner, as on Laravel 11/12');
        $this->assertFalse($lock->isOwnedBy(''), "free: '' is not null");
        $this->assertFalse($lock->isOwnedByCurrentProcess());
        $this->assertTrue($lock->get());
        $this->assertFalse($lock->isOwnedBy(null), 'held: null is not the owner');
        $this->assertTrue($lock->isOwnedBy('me'));
        $this->assertTrue(Cache::restoreLock('strict', 'other')->isOwnedBy('me'));
        $this->assertTrue($lock->release());
        $this->assertTrue($lock->isOwnedBy(null), 'free again after release');
    }

    /**
     * One pass of calls on the store $store; returns each answer under a label.
     * Owners are given (A, B, C) so that both stores see the same values.
     */
    private function script(string $store): array
    {
        $s = Cache::store($store);
        $ownedBy = method_exists(Lock::class, 'isOwnedBy');
        // protected on Laravel 8 and 9
        $currentProcess = (new \ReflectionMethod(Lock::class, 'isOwnedByCurrentProcess'))->isPublic();
        $refresh = method_exists($s->lock('p'), 'refresh') && method_exists(\Illuminate\Cache\RedisLock::class, 'refresh');
        $out = [];

        $s->lock('p')->forceRelease();
        $a = $s->lock('p', 10, 'A');
        $out['owner()'] = $a->owner();
        $out['sleep setter returns the lock'] = $a->betweenBlockedAttemptsSleepFor(10) === $a;
        $out['getConnectionName()'] = $a->getConnectionName();
        if ($ownedBy) {
            $out['free: isOwnedBy(null)'] = $a->isOwnedBy(null);
            $out['free: isOwnedBy(A)'] = $a->isOwnedBy('A');
        }
        if ($currentProcess) {
            $out['free: isOwnedByCurrentProcess()'] = $a->isOwnedByCurrentProcess();
        }
        $out['free: release()'] = $a->release();
        if ($refresh) {
            $out['free: refresh()'] = $a->refresh();
        }
        $out['get()'] = $a->get();
        $out['held: get() by the same owner'] = $s->lock('p', 10, 'A')->get();
        $out['held: get() by another'] = $s->lock('p', 10, 'B')->get();
        $out['held: acquire() by another'] = $s->lock('p', 10, 'B')->acquire();
        if ($ownedBy) {
            $out['held: isOwnedBy(null)'] = $a->isOwnedBy(null);
            $out['held: isOwnedBy(A)'] = $a->isOwnedBy('A');
            $out['held: restoreLock(B)->isOwnedBy(A)'] = $s->restoreLock('p', 'B')->isOwnedBy('A');
        }
        if ($currentProcess) {
            $out['held: isOwnedByCurrentProcess()'] = $a->isOwnedByCurrentProcess();
            $out['held: restoreLock(A)->isOwnedByCurrentProcess()'] = $s->restoreLock('p', 'A')->isOwnedByCurrentProcess();
            $out['held: restoreLock(B)->isOwnedByCurrentProcess()'] = $s->restoreLock('p', 'B')->isOwnedByCurrentProcess();
        }
        $out['held: restoreLock(A)->owner()'] = $s->restoreLock('p', 'A')->owner();
        if ($refresh) {
            $out['held: refresh() by another'] = $s->restoreLock('p', 'B')->refresh(20);
            $out['held: refresh(20)'] = $a->refresh(20);
            $out['held: refresh()'] = $a->refresh();
            $out['held: refresh(0)'] = $a->refresh(0);
            $out['held after refresh(0): get() by another'] = $s->lock('p', 10, 'B')->get();
        }
        $out['held: block(0) by another'] = $this->thrown(fn () => $s->lock('p', 10, 'B')->block(0));
        $out['held: release() by another'] = $s->restoreLock('p', 'B')->release();
        $out['held: release()'] = $a->release();
        $out['released: release() again'] = $a->release();
        $out['get(callback)'] = $s->lock('p', 10, 'C')->get(fn () => 'cb');
        $out['free after get(callback): get()'] = $s->lock('p', 10, 'C')->get();
        $out['held: get(callback) by another'] = $s->lock('p', 10, 'B')->get(fn () => 'never');
        $out['forceRelease()'] = $s->lock('p')->forceRelease();
        $out['after forceRelease(): restoreLock(C)->release()'] = $s->restoreLock('p', 'C')->release();
        $out['block(1)'] = $s->lock('p', 10, 'D')->block(1);
        $out['held: block(1, callback) by another'] = $this->thrown(fn () => $s->lock('p', 10, 'B')->block(0.3, fn () => 'never'));
        $out['restoreLock(D)->release()'] = $s->restoreLock('p', 'D')->release();
        $out['block(1, callback)'] = $s->lock('p', 10, 'E')->block(1, fn () => 'cb');
        $out['block(1, throwing callback)'] = $this->thrown(fn () => $s->lock('p', 10, 'E')->block(1, function () {
            throw new \DomainException('from the callback');
        }));
        $out['free after a throwing callback: get()'] = $s->lock('p', 10, 'F')->get();
        $out['restoreLock(F)->release()'] = $s->restoreLock('p', 'F')->release();
        $out['lock(name, 0) (no expiry): get()'] = $s->lock('p', 0, 'G')->get();
        $out['lock(name, 0): get() by another'] = $s->lock('p', 0, 'B')->get();
        $out['lock(name, 0): release()'] = $s->restoreLock('p', 'G')->release();
        if ($ownedBy) {
            $out['end: isOwnedBy(null)'] = $s->lock('p')->isOwnedBy(null);
        }
        return $out;
    }

    /** The class of what $f throws, or its return value. */
    private function thrown(callable $f): mixed
    {
        try {
            return ['returned' => $f()];
        } catch (LockTimeoutException $e) {
            return ['threw' => LockTimeoutException::class];
        } catch (\Throwable $e) {
            return ['threw' => get_class($e), 'message' => $e->getMessage()];
        }
    }
}
