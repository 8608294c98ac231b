--TEST--
Sentinel: one name, one kind: a name held as a semaphore, shared or a mutex is refused under another kind with LockKindException (try and wait, a multi-lock, release by token); the connection works after and no connection error is counted
--SKIPIF--
<?php if (!getenv('SENTINEL_PORTS')) die('skip SENTINEL_PORTS not set'); ?>
--FILE--
<?php
require __DIR__ . '/sentinel.inc';
$opts = ['sentinel' => st_name(), 'defer_release' => false, 'prefix' => 'kinds10:'];
$d = new DistLock(st_sentinels(), $opts);
$e = new DistLock(st_sentinels(), $opts);
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
$sem = $d->acquirePermits('s', 3);
$shared = $d->lockShared('r');
$mutex = $d->lock('m');
echo "tryLock on a semaphore: ", outcome(fn () => $e->tryLock('s')), "\n";
echo "lock(wait: 3) on a semaphore: ", outcome(fn () => $e->lock('s', 10, 3)), "\n";
echo "acquirePermits on a shared lock: ", outcome(fn () => $e->acquirePermits('r', 3, 1, 10, 3)), "\n";
echo "tryLock on a shared lock: ", outcome(fn () => $e->tryLock('r')), "\n";
echo "lockShared on a mutex: ", outcome(fn () => $e->lockShared('m', 10, 3)), "\n";
echo "lockAll with a semaphore's name: ", outcome(fn () => $e->lockAll(['a', 's'], 10, 3)), "\n";
echo "release by token of a permit: ", outcome(fn () => $e->release('s', $sem->token())), "\n";
var_dump($sem->release(), $shared->release(), $mutex->release());
$l = $e->tryLock('s');
echo "afterwards: ", $l ? 'granted' : 'null', ", connection errors: ", $e->stats()['connection_errors'] + $d->stats()['connection_errors'], "\n";
$l->release();
?>
--EXPECT--
tryLock on a semaphore: DistLock\LockKindException: "s" is held as a semaphore; it was asked for as a mutex (one name, one kind)
lock(wait: 3) on a semaphore: DistLock\LockKindException: "s" is held as a semaphore; it was asked for as a mutex (one name, one kind)
acquirePermits on a shared lock: DistLock\LockKindException: "r" is held as a readers-writer lock; it was asked for as a semaphore (one name, one kind)
tryLock on a shared lock: DistLock\LockKindException: "r" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
lockShared on a mutex: DistLock\LockKindException: "m" is held as a mutex; it was asked for as a readers-writer lock (one name, one kind)
lockAll with a semaphore's name: DistLock\LockKindException: "s" is held as a semaphore; it was asked for as a mutex (one name, one kind)
release by token of a permit: DistLock\LockKindException: "s" is held as a semaphore; it was asked for as a mutex (one name, one kind)
bool(true)
bool(true)
bool(true)
afterwards: granted, connection errors: 0
