--TEST--
watchdog: a 0.6 s lease survives 2.5 s of usleep(); without the watchdog the same lease is gone
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
$prefix = 'phpt_200:';
raw_redis_del_prefix($prefix);

$wd = new DistLock(test_uri(), ['prefix' => $prefix, 'watchdog' => true]);
$plain = new DistLock(test_uri(), ['prefix' => $prefix]);
$s0 = $wd->stats();

$l = $wd->lock('kept', 0.6);
$c = $plain->lock('control', 0.6);
var_dump($l->fencingToken());   // no fencing option: null

usleep(2500000);                 // PHP is blocked in C: only the watchdog thread runs

[$holds, $pttl] = lc_key_state($prefix . 'kept', $l->token());
echo "kept: holds token=", var_export($holds, true), " pttl in (0, 600]=", var_export($pttl > 0 && $pttl <= 600, true), "\n";
echo "control: exists=", raw_redis('EXISTS', $prefix . 'control'), "\n";
var_dump($l->isAcquired(), $l->remainingLifetime() > 0.0);
var_dump($c->isAcquired(), $c->release());

$s1 = $wd->stats();
// 2.5 s at one renewal per ttl/3 = 0.2 s: about 12; at least 6 even on a slow machine
echo "renewals >= 6: ", var_export($s1['renewals'] - $s0['renewals'] >= 6, true), "\n";
echo "round trips >= 6: ", var_export($s1['renewal_round_trips'] - $s0['renewal_round_trips'] >= 6, true), "\n";
echo "lost: ", $s1['lost'] - $s0['lost'] - 1, "\n";   // the control's loss only (found by isAcquired)

var_dump($l->release(), raw_redis('EXISTS', $prefix . 'kept'));
// released: the watchdog stops renewing it (and does not recreate the key)
$rt = $wd->stats()['renewal_round_trips'];
usleep(700000);
echo "round trips after release: ", $wd->stats()['renewal_round_trips'] - $rt, "\n";
var_dump(raw_redis('EXISTS', $prefix . 'kept'));
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_200:');
?>
--EXPECT--
NULL
kept: holds token=true pttl in (0, 600]=true
control: exists=0
bool(true)
bool(true)
bool(false)
bool(false)
renewals >= 6: true
round trips >= 6: true
lost: 0
bool(true)
int(0)
round trips after release: 0
int(0)
