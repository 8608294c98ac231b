--TEST--
Cluster: one name, one kind: a name held as a semaphore, shared or a mutex is refused under another kind with LockKindException (try and wait, a multi-lock in one slot and across slots, release by token); the connection works after and no connection error is counted
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_CLUSTER_SEEDS')) die('skip DISTLOCK_TEST_CLUSTER_SEEDS not set'); ?>
--FILE--
<?php
require __DIR__ . '/cluster.inc';
$opts = ['cluster' => true, 'defer_release' => false, 'timeout' => 2, 'prefix' => 'kinds11:'];
$d = new DistLock(cl_seeds(), $opts);
$e = new DistLock(cl_seeds(), $opts);
function outcome(callable $f): string
{
    $t0 = microtime(true);
    try {
        $r = $f();
        $what = $r === null ? 'null' : (is_bool($r) ? var_export($r, true) : 'granted');
    } catch (Throwable $x) {
        $what = get_class($x) . ': ' . $x->getMessage();
    }
    return $what . (microtime(true) - $t0 > 1.0 ? ' (waited)' : '');
}
$sem = $d->acquirePermits('{k}s', 3);
$two = $d->acquirePermits('{k}s', 3);
$shared = $d->lockShared('{k}r');
$mutex = $d->lock('{k}m');
echo "tryLock on a semaphore: ", outcome(fn () => $e->tryLock('{k}s')), "\n";
echo "lock(wait: 3) on a semaphore: ", outcome(fn () => $e->lock('{k}s', 10, 3)), "\n";
echo "lockShared on a semaphore: ", outcome(fn () => $e->lockShared('{k}s', 10, 3)), "\n";
echo "acquirePermits on a shared lock: ", outcome(fn () => $e->acquirePermits('{k}r', 3, 1, 10, 3)), "\n";
echo "tryLock on a shared lock: ", outcome(fn () => $e->tryLock('{k}r')), "\n";
echo "lockExclusive on a mutex: ", outcome(fn () => $e->lockExclusive('{k}m', 10, 3)), "\n";
echo "tryLockAll in one slot: ", outcome(fn () => $e->tryLockAll(['{k}a', '{k}s'])), "\n";
echo "lockAll across slots: ", outcome(fn () => $e->lockAll(['{a}a', '{k}r'], 10, 3)), "\n";
echo "the first name of it left free: ", var_export(!$e->isLocked('{a}a'), true), "\n";
echo "release by token of a permit: ", outcome(fn () => $e->release('{k}s', $sem->token())), "\n";
var_dump($sem->release(), $two->release(), $shared->release(), $mutex->release());
$l = $e->tryLock('{k}s');
echo "afterwards: ", $l ? 'granted' : 'null', ", connection errors: ", $e->stats()['connection_errors'] + $d->stats()['connection_errors'], "\n";
$l->release();
?>
--EXPECT--
tryLock on a semaphore: DistLock\LockKindException: "{k}s" is held as a semaphore; it was asked for as a mutex (one name, one kind)
lock(wait: 3) on a semaphore: DistLock\LockKindException: "{k}s" is held as a semaphore; it was asked for as a mutex (one name, one kind)
lockShared on a semaphore: DistLock\LockKindException: "{k}s" is held as a semaphore; it was asked for as a readers-writer lock (one name, one kind)
acquirePermits on a shared lock: DistLock\LockKindException: "{k}r" is held as a readers-writer lock; it was asked for as a semaphore (one name, one kind)
tryLock on a shared lock: DistLock\LockKindException: "{k}r" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
lockExclusive on a mutex: DistLock\LockKindException: "{k}m" is held as a mutex; it was asked for as a readers-writer lock (one name, one kind)
tryLockAll in one slot: DistLock\LockKindException: "{k}s" is held as a semaphore; it was asked for as a mutex (one name, one kind)
lockAll across slots: DistLock\LockKindException: "{k}r" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
the first name of it left free: true
release by token of a permit: DistLock\LockKindException: "{k}s" is held as a semaphore; it was asked for as a mutex (one name, one kind)
bool(true)
bool(true)
bool(true)
bool(true)
afterwards: granted, connection errors: 0
