--TEST--
release(): false after expiry; false after another owner took over, whose key survives; forceRelease deletes regardless
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$a = new DistLock(test_uri(), ['prefix' => 'phpt_015:']);
$b = new DistLock(test_uri(), ['prefix' => 'phpt_015:']);

// expiry
$l = $a->lock('exp', 0.1);
usleep(250000);
var_dump(raw_redis('EXISTS', 'phpt_015:exp'));
var_dump($l->isAcquired(), $l->remainingLifetime(), $l->release(), $l->release());

// takeover: ours expired, $b holds it now
$l = $a->lock('take', 0.1);
usleep(250000);
$lb = $b->lock('take', 5);
var_dump($l->isAcquired(), $l->refresh(), $l->release());
var_dump(raw_redis('GET', 'phpt_015:take') === $lb->token());   // not deleted by $a
$pttl = raw_redis('PTTL', 'phpt_015:take');
var_dump($pttl > 4500);                                          // and not shortened by $a's refresh
var_dump($lb->isAcquired());

// a foreign writer replaced our value: still never deleted by us
$l = $a->lock('foreign', 5);
raw_redis('SET', 'phpt_015:foreign', 'intruder', 'PX', 5000);
var_dump($l->release(), raw_redis('GET', 'phpt_015:foreign'));

// forceRelease deletes regardless of owner; false when nothing was there
var_dump($a->forceRelease('take'), raw_redis('EXISTS', 'phpt_015:take'));
var_dump($lb->isAcquired(), $lb->release());
var_dump($a->forceRelease('take'), $a->forceRelease('never-existed'));
var_dump($b->forceRelease('foreign'), raw_redis('EXISTS', 'phpt_015:foreign'));
// forceRelease of a name we hold ourselves: the handle then reports the loss
$own = $a->lock('own', 5);
var_dump($a->forceRelease('own'), $own->isAcquired(), $own->release());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_015:');
?>
--EXPECT--
int(0)
bool(false)
float(0)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(true)
bool(true)
bool(true)
bool(false)
string(8) "intruder"
bool(true)
int(0)
bool(false)
bool(false)
bool(false)
bool(false)
bool(true)
int(0)
bool(true)
bool(false)
bool(false)
