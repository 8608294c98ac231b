--TEST--
watchdog: a 0.6 s lease survives sleep(2) (and a release() after it is true); without the watchdog it expires
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--INI--
max_execution_time=0
pcre.jit=0
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$prefix = 'phpt_201:';
raw_redis_del_prefix($prefix);

$wd = new DistLock(test_uri(), ['prefix' => $prefix, 'watchdog' => true, 'ttl' => 0.6]);
$plain = new DistLock(test_uri(), ['prefix' => $prefix, 'ttl' => 0.6]);

$l = $wd->tryLock('kept');           // the default ttl (0.6 s) from the options
$c = $plain->tryLock('control');
var_dump($l !== null, $c !== null);
$token = $l->token();

echo "sleep: ", sleep(2), "\n";

[$holds, $pttl] = lc_key_state($prefix . 'kept', $token);
echo "kept: holds token=", var_export($holds, true), " pttl in (0, 600]=", var_export($pttl > 0 && $pttl <= 600, true), "\n";
echo "control: exists=", raw_redis('EXISTS', $prefix . 'control'), "\n";

// another owner cannot take it while the watchdog keeps it
$other = new DistLock(test_uri(), ['prefix' => $prefix]);
var_dump($other->tryLock('kept', 5));
var_dump($c->release());             // the control expired: false
var_dump($l->release(), raw_redis('EXISTS', $prefix . 'kept'));
var_dump($l->release());             // idempotent
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_201:');
?>
--EXPECT--
bool(true)
bool(true)
sleep: 0
kept: holds token=true pttl in (0, 600]=true
control: exists=0
NULL
bool(false)
bool(true)
int(0)
bool(false)
