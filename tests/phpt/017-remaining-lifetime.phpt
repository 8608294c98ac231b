--TEST--
Lock::remainingLifetime(), isAcquired(), fencingToken(): values while held, after release, after loss
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$d = new DistLock(test_uri(), ['prefix' => 'phpt_017:']);
$l = $d->lock('r', 2);
$r = $l->remainingLifetime();
var_dump(is_float($r));
echo "0 < x <= 2: ", var_export($r > 0 && $r <= 2.0, true), ", > 1.8: ", var_export($r > 1.8, true), "\n";
usleep(300000);
$r2 = $l->remainingLifetime();
echo "decreases: ", var_export($r2 < $r && $r2 <= 1.75 && $r2 > 0.8, true), "\n";
// it is the key's PTTL, in seconds
raw_redis('PEXPIRE', 'phpt_017:r', 1234);
printf("follows PTTL: %s\n", var_export(abs($l->remainingLifetime() - 1.234) < 0.1, true));
var_dump($l->isAcquired(), $l->isAcquired());   // asking does not change anything
var_dump($l->fencingToken());
var_dump($l->release());
var_dump($l->remainingLifetime(), $l->isAcquired(), $l->fencingToken());

// lost to a foreign value: 0.0 although the key exists with a TTL
$l = $d->lock('r', 2);
raw_redis('SET', 'phpt_017:r', 'someone-else', 'PX', 5000);
var_dump($l->remainingLifetime(), $l->isAcquired());
raw_redis('DEL', 'phpt_017:r');

// lost by expiry
$l = $d->lock('r', 0.05);
usleep(120000);
var_dump($l->remainingLifetime(), $l->isAcquired());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_017:');
?>
--EXPECT--
bool(true)
0 < x <= 2: true, > 1.8: true
decreases: true
follows PTTL: true
bool(true)
bool(true)
NULL
bool(true)
float(0)
bool(false)
NULL
float(0)
bool(false)
float(0)
bool(false)
