--TEST--
forceRelease() deletes whatever holds a name, of any kind: shared holders and a semaphore's permits go with the key, so no other kind gets in beside a holder left behind
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$uri = test_uri();
$p = 'phpt_411:';
raw_redis_del_prefix($p);
$a = new DistLock($uri, ['prefix' => $p]);
$b = new DistLock($uri, ['prefix' => $p]);
$admin = new DistLock($uri, ['prefix' => $p]);

// Two shared holders: the key ("\0R") and R go; a mutex then holds the name alone.
$r1 = $a->lockShared('cat', 30);
$r2 = $b->lockShared('cat', 30);
var_dump($admin->forceRelease('cat'));
var_dump($admin->status('cat')['kind'], $admin->isLocked('cat'));
$m = $admin->tryLock('cat', 30);
var_dump($m instanceof DistLock\Lock);
$s = $admin->status('cat');
echo "after: kind={$s['kind']} holders={$s['holders']}\n";
var_dump($r1->isAcquired(), $r2->isAcquired());
var_dump($m->release());

// A semaphore with a holder of 3 permits and one of 1: K and P go; the permits are free again.
$s1 = $a->acquirePermits('pool', 4, 3, 30);
$s2 = $b->acquirePermits('pool', 4, 1, 30);
var_dump($admin->forceRelease('pool'));
var_dump($admin->permits('pool'));
$s3 = $admin->tryAcquirePermits('pool', 4, 4, 30);
var_dump($s3 instanceof DistLock\Lock);
$s3->release();

// A writer, then nothing: false the second time.
$w = $a->lockExclusive('doc', 30);
var_dump($admin->forceRelease('doc'), $admin->forceRelease('doc'));
var_dump($w->release());
var_dump(raw_redis('KEYS', $p . '*'));
echo "done\n";
?>
--CLEAN--
<?php require __DIR__ . '/inc/lifecycle.inc'; raw_redis_del_prefix('phpt_411:'); ?>
--EXPECT--
bool(true)
NULL
bool(false)
bool(true)
after: kind=mutex holders=1
bool(false)
bool(false)
bool(true)
bool(true)
array(2) {
  ["holders"]=>
  int(0)
  ["used"]=>
  int(0)
}
bool(true)
bool(true)
bool(false)
bool(false)
array(0) {
}
done
